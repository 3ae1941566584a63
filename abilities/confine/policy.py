"""What the confined interpreter may not do: the seccomp deny list and the limits' defaults.

Pure data, imported by the launcher (before the jail is built) and by the tests that check each
entry is really refused. The filter is a deny list on top of namespaces, dropped capabilities and
a read-only root: it removes the kernel interfaces a walk-out needs (new namespaces, mounts,
another root), every way to touch another process (ptrace, process_vm_*, pidfds, new processes),
kernel attack surface the interpreter never uses (bpf, keyrings, perf, io_uring, userfaultfd,
modules) and every socket.
"""

from __future__ import annotations

import errno

#: Syscalls the filter must refuse; the launcher refuses to run a candidate if any is unknown to
#: the installed libseccomp (fail closed rather than run with a hole).
REQUIRED_DENY: tuple[str, ...] = (
    "unshare", "setns", "mount", "umount2", "chroot", "pivot_root",
    "ptrace", "process_vm_readv", "process_vm_writev",
    "bpf", "keyctl", "add_key", "request_key", "perf_event_open",
    "socket", "socketpair",
    "clone", "fork", "vfork", "clone3",
)

#: Further syscalls refused when this libseccomp knows them (newer kernels' mount API, io_uring,
#: modules, clocks, identity changes...). Unknown names on an older library are skipped.
EXTRA_DENY: tuple[str, ...] = (
    "socketcall", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "name_to_handle_at", "open_by_handle_at", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "userfaultfd", "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog", "lookup_dcookie",
    "setsid", "setpgid", "prctl", "personality", "kcmp", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
    "mknod", "mknodat", "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid",
    "setgroups", "setfsuid", "setfsgid", "capset", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "sethostname", "setdomainname", "iopl", "ioperm", "vhangup", "uselib", "move_pages",
    "migrate_pages", "memfd_secret",
)

#: errno returned for a refused call. clone3 answers ENOSYS so the C library falls back to clone,
#: which is then refused with EPERM like every other entry.
DENY_ERRNO = errno.EPERM
ENOSYS_INSTEAD = frozenset({"clone3"})

#: Outer uid/gid the candidate runs as when the service runs as root (the candidate is uid 0 only
#: inside its own user namespace, mapped to this id outside).
NOBODY = 65534
