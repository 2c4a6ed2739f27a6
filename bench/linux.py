"""The Linux reference guests: Debian's own kernels, fetched with apt-get.

Each reference is a Debian kernel package's vmlinuz plus an initramfs that
holds nothing but bench/linux-init.c, built static for the guest's
architecture.  Everything lands in build/bench/linux/ (never committed) and
is reused by the next run.

    i386   linux-image-<abi>-686    periodic tick at 250 Hz, qemu-system-i386
    amd64  linux-image-<abi>-amd64  tickless (NO_HZ_IDLE), qemu-system-x86_64

One more is not Debian's build: "linux-6.1-dyntick" is the kernel that
`make linux` builds from Debian's linux-source-6.1 with linux/'s series
(docs/linux.md), $BUILD/linux/bzImage, i386 tinyconfig plus the fragment:
tickless (NO_HZ_IDLE) with the 2005 run-time switch, which its rows flip.

The -unsigned packages are preferred (the same kernel without the Secure
Boot signature); the signed ones are the fallback.  The i386 package index
is fetched with an apt option for that one command instead of
`dpkg --add-architecture i386`, so the host's configuration is left alone.
"""
import glob
import gzip
import os
import re
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
INIT_SRC = os.path.join(ROOT, "bench", "linux-init.c")
APT_BOTH_ARCHES = ["-o", "APT::Architectures::=amd64", "-o", "APT::Architectures::=i386"]

# name -> how to get and boot it
REFERENCES = {
    "linux-686": dict(arch="i386", flavour="686", meta="linux-image-686:i386",
                      qemu="qemu-system-i386", cpu="qemu32", cc="i686-linux-gnu-gcc",
                      what="Debian i386 kernel (686 flavour)"),
    "linux-amd64": dict(arch="amd64", flavour="amd64", meta="linux-image-amd64",
                        qemu="qemu-system-x86_64", cpu="qemu64", cc="gcc",
                        what="Debian amd64 kernel"),
    "linux-6.1-dyntick": dict(arch="i386", built="linux/bzImage", qemu="qemu-system-i386",
                              cpu="qemu32", cc="i686-linux-gnu-gcc",
                              what="Linux 6.1 with linux/'s series (make linux)"),
}
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))


class Unavailable(Exception):
    """The reference cannot be prepared on this machine; the message says why."""


def _run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def _package_name(ref):
    """The versioned kernel package the meta-package points at, e.g. linux-image-6.1.0-57-686."""
    for attempt in range(2):
        r = _run(["apt-cache", *APT_BOTH_ARCHES, "depends", ref["meta"]])
        m = re.search(r"Depends: (linux-image-[\w.+-]+?)(:\w+)?$", r.stdout, re.M)
        if m:
            return m.group(1)
        if attempt == 0:    # no index for that architecture yet: fetch it once
            print(f"bench: fetching the apt index for {ref['arch']} (one apt-get update)")
            _run(["apt-get", *APT_BOTH_ARCHES, "update", "-qq"])
    raise Unavailable(f"apt-cache knows no {ref['meta']} (no package index for {ref['arch']}?)")


def _download(ref, workdir):
    """The .deb in workdir (downloaded now unless a previous run left it)."""
    ours = re.compile(rf"linux-image-[\d.]+-\d+-{ref['flavour']}(-unsigned)?_.*_{ref['arch']}\.deb$")

    def cached():
        return sorted(f for f in glob.glob(os.path.join(workdir, "*.deb")) if ours.match(os.path.basename(f)))
    if cached():
        return cached()[-1]
    name = _package_name(ref)
    errors = []
    for pkg in (name + "-unsigned", name):
        r = _run(["apt-get", *APT_BOTH_ARCHES, "download", f"{pkg}:{ref['arch']}"], cwd=workdir)
        if cached():
            return cached()[-1]
        errors.append(f"{pkg}: " + (r.stderr.strip().splitlines() or ["?"])[-1])
    raise Unavailable("apt-get download failed: " + "; ".join(errors))


def _extract_vmlinuz(deb, workdir):
    """Only boot/vmlinuz-* out of the package (the modules are not needed)."""
    kdir = os.path.join(workdir, os.path.basename(deb)[:-len(".deb")])
    found = glob.glob(os.path.join(kdir, "boot", "vmlinuz-*"))
    if found:
        return found[0]
    os.makedirs(kdir, exist_ok=True)
    p = subprocess.run(f"dpkg-deb --fsys-tarfile '{deb}' | tar -x -C '{kdir}' --wildcards './boot/vmlinuz-*'",
                       shell=True, capture_output=True, text=True)
    found = glob.glob(os.path.join(kdir, "boot", "vmlinuz-*"))
    if not found:
        raise Unavailable(f"no boot/vmlinuz-* in {os.path.basename(deb)}: {p.stderr.strip()}")
    return found[0]


def _build_init(ref, workdir):
    out = os.path.join(workdir, f"init-{ref['arch']}")
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(INIT_SRC):
        return out
    r = _run([ref["cc"], "-static", "-O2", "-Wall", "-Wextra", "-o", out, INIT_SRC])
    if r.returncode != 0:
        hint = " (static i386 libc: apt-get install libc6-dev-i386-cross)" if ref["arch"] == "i386" else ""
        raise Unavailable(f"{ref['cc']} -static failed{hint}: {r.stderr.strip()[-300:]}")
    return out


def _cpio_newc(entries):
    """An initramfs archive: the "newc" cpio format the kernel unpacks.

    Each entry is (name, mode, data, rdev_major, rdev_minor).  A header is
    "070701" and 13 eight-digit hex fields, then the name (NUL-terminated)
    and the data, each padded to 4 bytes; "TRAILER!!!" ends the archive.
    Writing it here needs no cpio tool and no root for the device node.
    """
    out = bytearray()
    for ino, (name, mode, data, major, minor) in enumerate(entries + [("TRAILER!!!", 0, b"", 0, 0)], 1):
        fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, major, minor, len(name) + 1, 0]
        out += b"070701" + b"".join(b"%08X" % f for f in fields) + name.encode() + b"\0"
        out += b"\0" * (-len(out) % 4) + data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def _initramfs(init, workdir, arch):
    out = os.path.join(workdir, f"initramfs-{arch}.cpio.gz")
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(init):
        return out
    with open(init, "rb") as f:
        init_data = f.read()
    entries = [
        ("dev", 0o040755, b"", 0, 0),
        ("dev/console", 0o020600, b"", 5, 1),   # the kernel opens it for init's stdio
        ("proc", 0o040755, b"", 0, 0),
        ("sys", 0o040755, b"", 0, 0),
        ("init", 0o100755, init_data, 0, 0),
    ]
    with gzip.open(out, "wb") as f:
        f.write(_cpio_newc(entries))
    return out


def prepare(name, workdir):
    """(vmlinuz, initramfs, package file name) for a reference; raises Unavailable."""
    ref = REFERENCES[name]
    os.makedirs(workdir, exist_ok=True)
    if "built" in ref:
        kernel = os.path.join(BUILD, ref["built"])
        if not os.path.exists(kernel):
            raise Unavailable(f"no {kernel}: run make linux")
        init = _build_init(ref, workdir)
        return kernel, _initramfs(init, workdir, ref["arch"]), f"{ref['built']} ({os.path.getsize(kernel)} bytes)"
    deb = _download(ref, workdir)
    vmlinuz = _extract_vmlinuz(deb, workdir)
    init = _build_init(ref, workdir)
    return vmlinuz, _initramfs(init, workdir, ref["arch"]), os.path.basename(deb)
