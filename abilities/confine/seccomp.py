"""A seccomp deny filter built with libseccomp through ctypes.

libseccomp (Debian ``libseccomp2``, a dependency of apt, so present on every Debian/Ubuntu
system and image) resolves syscall names for the native architecture, adds the architecture
check (a call made under another ABI, e.g. x32 numbers or the i386 ``int 0x80`` entry on x86_64,
kills the process) and compiles the BPF program. Binding the five C functions directly keeps
the project free of an unmaintained Python wrapper; the same approach is used by BenchExec.
"""

from __future__ import annotations

import ctypes
import os

from abilities.confine.policy import DENY_ERRNO, ENOSYS_INSTEAD, EXTRA_DENY, REQUIRED_DENY

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_ERRNO = 0x00050000
NR_SCMP_ERROR = -1


class SeccompUnavailable(OSError):
    """libseccomp is missing or refused to build/load the filter: do not run untrusted code."""


def _library() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError as exc:
        raise SeccompUnavailable("libseccomp.so.2 is not installed (Debian/Ubuntu package libseccomp2)") from exc
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_rule_add.restype = ctypes.c_int
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_load.restype = ctypes.c_int
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.restype = None
    return lib


def syscall_number(name: str) -> int:
    """The native number of a syscall (used by the launcher for calls glibc does not wrap)."""
    nr = _library().seccomp_syscall_resolve_name(name.encode())
    if nr < 0:
        raise SeccompUnavailable(f"syscall {name} is unknown on this architecture")
    return nr


def install_deny_filter(required: tuple[str, ...] = REQUIRED_DENY, extra: tuple[str, ...] = EXTRA_DENY) -> list[str]:
    """Load the filter into the calling process (irreversible; inherited across fork and exec).

    Every other call passes; each denied one fails with EPERM (clone3: ENOSYS). Returns the
    names actually denied. Raises ``SeccompUnavailable`` when a required entry cannot be added
    or the kernel refuses the filter (the caller must then not exec the candidate).
    """
    lib = _library()
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise SeccompUnavailable("seccomp_init failed")
    denied: list[str] = []
    try:
        for name in required + extra:
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr == NR_SCMP_ERROR:
                if name in required:
                    raise SeccompUnavailable(f"libseccomp does not know the required syscall {name}")
                continue
            err = 38 if name in ENOSYS_INSTEAD else DENY_ERRNO  # 38 = ENOSYS on every Linux arch
            rc = lib.seccomp_rule_add(ctx, SCMP_ACT_ERRNO | err, nr, 0)
            if rc < 0:
                if name in required:
                    raise SeccompUnavailable(f"seccomp_rule_add({name}): {os.strerror(-rc)}")
                continue
            denied.append(name)
        rc = lib.seccomp_load(ctx)
        if rc < 0:
            raise SeccompUnavailable(f"seccomp_load: {os.strerror(-rc)}")
    finally:
        lib.seccomp_release(ctx)
    return denied
