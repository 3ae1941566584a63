"""The confinement launcher: builds the jail, then execs a fresh interpreter for the candidate.

Run by ``session.Session`` as ``python -I -S -B launcher.py CONFIG``; it never runs candidate
code itself. Three processes, each with one job:

- the launcher (the service's uid) forks the *keeper*, writes the keeper's uid/gid maps (the
  candidate is uid 0 only inside its user namespace; outside it is ``nobody`` when the service is
  root, else the service's own uid), then waits and exits with the keeper's status;
- the keeper unshares user, mount, PID, network, IPC, UTS and cgroup namespaces, builds a
  read-only tmpfs root holding only the Python install and system libraries, pivots into it and
  forks the candidate as PID 1 of the new PID namespace, then reports how it ended;
- the candidate process drops every capability (bounding set, ambient, securebits locked), sets
  no_new_privs and the rlimits, installs the seccomp filter and execs ``python`` on the harness.

Every step that fails is reported as ``{"refused": "..."}`` on the status pipe and nothing is
exec'd: confinement is all or nothing. The status pipe is close-on-exec in the candidate, so
what arrives on it was written by this trusted code only.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import resource
import signal
import sys
from pathlib import Path
from typing import Any, NoReturn

if __name__ == "__main__":  # started as a script with -I: make the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from abilities.confine.seccomp import SeccompUnavailable, install_deny_filter, syscall_number  # noqa: E402

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACES = (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
              | CLONE_NEWCGROUP)

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_PRIVATE, MS_RELATIME, MS_STRICTATIME = 1 << 18, 1 << 21, 1 << 24
MNT_DETACH = 2
#: statvfs flag -> mount flag that a bind remount inside a user namespace must keep (locked flags).
KEEP_FLAGS = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
              (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME))

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 28, 38, 47, 4
#: NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, NO_CAP_AMBIENT_RAISE, each with its lock bit.
SECUREBITS = 0b11101111
LINUX_CAPABILITY_VERSION_3 = 0x20080522

#: Where the tmpfs root is mounted inside the new mount namespace: any existing directory will do
#: (mounting over it does not write to it, so a read-only container root is fine).
MOUNT_POINTS = ("/tmp", "/mnt", "/run", "/var/tmp")
REFUSED_EXIT = 97
REQ_FD, REPLY_FD, STATUS_FD = 0, 3, 4

libc = ctypes.CDLL(None, use_errno=True)


class Refused(Exception):
    """A confinement step failed: report it and run nothing."""


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise Refused(f"{what}: {os.strerror(err)} (errno {err})")


def _status(fd: int, obj: dict[str, Any]) -> None:
    os.write(fd, (json.dumps(obj, sort_keys=True) + "\n").encode())


def _enc(s: str | None) -> bytes | None:
    return s.encode() if s is not None else None


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = _enc
    _check(libc.mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {src or fstype} on {target}")


def _kept_flags(path: str) -> int:
    st = os.statvfs(path).f_flag
    return sum(ms for st_flag, ms in KEEP_FLAGS if st & st_flag)


def _bind_read_only(fd: int, target: str) -> None:
    """Bind the directory open at ``fd`` onto ``target`` read-only (no suid, no devices)."""
    src = f"/proc/self/fd/{fd}"
    try:
        _mount(src, target, None, MS_BIND)
    except Refused:  # a source with locked submounts only binds recursively
        _mount(src, target, None, MS_BIND | MS_REC)
    _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | _kept_flags(target))


def _build_root(binds: list[tuple[int, str]], symlinks: dict[str, str], masks: list[str]) -> None:
    """A tmpfs root with read-only binds of ``binds``; then pivot into it and make it read-only."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    points = [p for p in MOUNT_POINTS if os.path.isdir(p) and not os.path.islink(p)]
    if not points:
        raise Refused(f"no directory to mount the new root on (tried {', '.join(MOUNT_POINTS)})")
    new_root = points[0]
    _mount("tmpfs", new_root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    for fd, path in binds:
        target = new_root + path
        os.makedirs(target, exist_ok=True)
        _bind_read_only(fd, target)
        os.close(fd)
    for link, dest in symlinks.items():
        os.symlink(dest, new_root + link)
    for path in masks:  # e.g. site-packages: an empty read-only tmpfs over it
        _mount("tmpfs", new_root + path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k")
    _check(libc.sethostname(b"sandbox", 7), "sethostname")
    os.chdir(new_root)
    _check(libc.syscall(syscall_number("pivot_root"), b".", b"."), "pivot_root")
    _check(libc.umount2(b".", MNT_DETACH), "detach the old root")
    os.chdir("/")
    _mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _drop_privileges() -> None:
    """No capability now or after exec, and no way to gain one (securebits locked, no_new_privs)."""
    _check(libc.prctl(PR_SET_SECUREBITS, SECUREBITS, 0, 0, 0), "lock securebits")
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # EINVAL past the last capability the kernel knows
    _check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    header = (ctypes.c_uint32 * 2)(LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable x 2 words, all zero
    _check(libc.syscall(syscall_number("capset"), header, data), "capset (drop all capabilities)")
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def _set_limits(limits: dict[str, int]) -> None:
    cpu, mem = limits["cpu_s"], limits["mem_mb"] << 20
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))  # SIGKILL at the limit (the candidate is PID 1)
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["fsize"], limits["fsize"]))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["nofile"], limits["nofile"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _candidate(cfg: dict[str, Any]) -> NoReturn:
    """PID 1 of the new namespace: confine this process completely, then exec the interpreter."""
    try:
        _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "parent-death signal")
        os.setsid()  # its own process group: kill(0, ...) reaches nothing but itself
        os.closerange(STATUS_FD + 1, 1 << 16)
        os.set_inheritable(REPLY_FD, True)
        os.set_inheritable(STATUS_FD, False)
        _set_limits(cfg["limits"])
        _drop_privileges()
        denied = install_deny_filter()
        _status(STATUS_FD, {"confined": {
            "namespaces": ["user", "mount", "pid", "net", "ipc", "uts", "cgroup"],
            "pid_in_namespace": os.getpid(), "root": "tmpfs, read-only", "read_only_binds": cfg["bind_paths"],
            "capabilities": "none", "no_new_privs": True, "seccomp_denied": len(denied),
            "rlimits": cfg["limits"], "outer_uid": cfg["outer_uid"], "fresh_interpreter": True}})
        harness = cfg["harness"]
        os.execve(cfg["python"], [cfg["python"], "-S", "-s", "-P", "-B", "-c", harness, str(cfg["reply_bytes"])],
                  {"PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"})
    except (Refused, SeccompUnavailable, OSError) as exc:
        _status(STATUS_FD, {"refused": f"candidate setup: {exc}"})
    os._exit(REFUSED_EXIT)


def _keeper(cfg: dict[str, Any], sync_r: int, sync_w: int) -> NoReturn:
    """Unshare, wait for the id maps, build the root, fork the candidate and report its end."""
    try:
        _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "parent-death signal")
        _check(libc.unshare(NAMESPACES), "unshare(user, mount, pid, net, ipc, uts, cgroup namespaces)")
        # Open the bind sources now: still the launcher's fsuid (can traverse e.g. a 0700 home),
        # and in the new mount namespace (a bind source must belong to it).
        binds = [(os.open(p, os.O_PATH | os.O_DIRECTORY), p) for p in cfg["bind_paths"]]
        os.write(sync_w, b"u")
        if os.read(sync_r, 1) != b"m":
            raise Refused("the launcher could not write the uid/gid maps")
        os.setresgid(0, 0, 0)
        os.setresuid(0, 0, 0)
        # an id change clears the parent-death signal: arm it again, then make sure the parent lives
        _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "parent-death signal")
        if os.getppid() != cfg["launcher_pid"]:
            raise Refused("the launcher is gone")
        _check(libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")
        _build_root(binds, cfg["symlinks"], cfg["masks"])
        pid = os.fork()
    except (Refused, OSError) as exc:
        _status(STATUS_FD, {"refused": f"namespace setup: {exc}"})
        os._exit(REFUSED_EXIT)
    if pid == 0:
        _candidate(cfg)
    os.close(REQ_FD)
    os.close(REPLY_FD)
    _status(STATUS_FD, {"pid": pid})
    # a last bound that needs no one outside: past the session's wall clock (+1 s) the keeper kills it
    alarm: list[bool] = []

    def wall_clock(*_: object) -> None:
        alarm.append(True)
        os.kill(pid, signal.SIGKILL)

    signal.signal(signal.SIGALRM, wall_clock)
    signal.setitimer(signal.ITIMER_REAL, cfg["wall_s"] + 1.0)
    _, wstatus, usage = os.wait4(pid, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)
    _status(STATUS_FD, {"exit": {
        "code": os.waitstatus_to_exitcode(wstatus), "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "maxrss_kb": usage.ru_maxrss, "killed_by_keeper": bool(alarm)}})
    os._exit(0)


def _write_maps(pid: int, outer_uid: int, outer_gid: int) -> None:
    Path(f"/proc/{pid}/setgroups").write_text("deny")
    Path(f"/proc/{pid}/uid_map").write_text(f"0 {outer_uid} 1")
    Path(f"/proc/{pid}/gid_map").write_text(f"0 {outer_gid} 1")


def main() -> NoReturn:
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the worker died: so does the whole jail
    if os.getppid() == 1:
        os._exit(REFUSED_EXIT)
    cfg = json.loads(sys.argv[1])
    high = {name: fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for name, fd in cfg["fds"].items()}
    for fd in cfg["fds"].values():
        os.close(fd)
    os.dup2(high["reply"], REPLY_FD)
    os.dup2(high["status"], STATUS_FD)
    for fd in high.values():
        os.close(fd)
    if os.geteuid() == 0:
        os.setgroups([])  # host groups must not follow the candidate
    outer_uid, outer_gid = cfg["outer_uid"], cfg["outer_gid"]
    cfg["launcher_pid"] = os.getpid()
    from_launcher, to_keeper = os.pipe()  # (read end, write end)
    from_keeper, to_launcher = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(to_keeper)
        os.close(from_keeper)
        _keeper(cfg, from_launcher, to_launcher)
    os.close(from_launcher)
    os.close(to_launcher)
    os.close(REQ_FD)
    os.close(REPLY_FD)
    if os.read(from_keeper, 1) == b"u":
        try:
            _write_maps(pid, outer_uid, outer_gid)
            os.write(to_keeper, b"m")
        except OSError as exc:
            _status(STATUS_FD, {"refused": f"uid/gid map: {exc}"})
    os.close(to_keeper)
    _, wstatus = os.waitpid(pid, 0)
    os._exit(os.waitstatus_to_exitcode(wstatus) & 0xFF)


if __name__ == "__main__":
    main()
