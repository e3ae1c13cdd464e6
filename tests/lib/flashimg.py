# SPDX-License-Identifier: GPL-2.0-only
"""Changing a board's images as someone with the flash in hand would: a bit of a
static UBI volume (its CRCs made to match), the initramfs's layer manifest."""
import gzip
import lzma
import os
import re
import struct
import subprocess
import zlib


# UBI headers (big endian); CRCs are crc32 seeded with ~0 without the final
# inversion, i.e. zlib's crc32 inverted.
UBI_VID_MAGIC = b"UBI!"
PEB, VID_OFF, DATA_OFF = 131072, 64, 128


def ubi_crc(data):
    return zlib.crc32(data) ^ 0xffffffff


def flip_in_static_volume(path, vol_id, offset):
    """Flips one bit at offset of a static UBI volume and fixes the LEB's data
    CRC and the VID header CRC, as someone rewriting the flash would: UBI's own
    checks pass, only the digest can tell."""
    leb_size = PEB - DATA_OFF
    lnum, off = divmod(offset, leb_size)
    with open(path, "r+b") as f:
        flash = f.read()
        for peb in range(len(flash) // PEB):
            base = peb * PEB
            vid = bytearray(flash[base + VID_OFF:base + VID_OFF + 64])
            if vid[:4] != UBI_VID_MAGIC:
                continue
            v, l = struct.unpack(">II", vid[8:16])
            if (v, l) != (vol_id, lnum):
                continue
            data_size = struct.unpack(">I", vid[20:24])[0]
            assert off < data_size, (off, data_size)
            leb = bytearray(flash[base + DATA_OFF:base + DATA_OFF + data_size])
            leb[off] ^= 0x01
            vid[32:36] = struct.pack(">I", ubi_crc(bytes(leb)))
            vid[60:64] = struct.pack(">I", ubi_crc(bytes(vid[:60])))
            f.seek(base + DATA_OFF + off)
            f.write(leb[off:off + 1])
            f.seek(base + VID_OFF)
            f.write(vid)
            return
    raise AssertionError("LEB %d of UBI volume %d not found" % (lnum, vol_id))


def initramfs_path(dev):
    """The initramfs file dev's start-qemu.sh boots (the build's compression names it)."""
    script = open(dev.path("start-qemu.sh")).read()
    return dev.path(re.search(r'^initramfs="\$here/([^"]+)"', script, re.M).group(1))


def read_initramfs(path):
    """The cpio archive in an initramfs file, compressed (xz, gzip) or not."""
    data = open(path, "rb").read()
    if data.startswith(b"\xfd7zXZ\x00"):
        return lzma.decompress(data)
    if data.startswith(b"\x1f\x8b"):
        return gzip.decompress(data)
    return data


def cpio_pages(data, page=4096):
    """Bytes of page cache the regular files of a newc cpio archive fill once unpacked."""
    total, off = 0, 0
    while off + 110 <= len(data) and data[off:off + 6] in (b"070701", b"070702"):
        mode = int(data[off + 14:off + 22], 16)
        size = int(data[off + 54:off + 62], 16)
        namesize = int(data[off + 94:off + 102], 16)
        off = (off + 110 + namesize + 3) & ~3
        if mode & 0o170000 == 0o100000:
            total += (size + page - 1) // page * page
        off = (off + size + 3) & ~3
    return total


def initramfs_with(ctx, dev, target, text):
    """Rebuilds the board's initramfs into dev's images with TARGET (a file the
    initramfs list names, e.g. /etc/strata/manifest) holding text."""
    build = os.path.join(os.path.dirname(ctx.images), "build")
    path = os.path.join(ctx.workdir, "%s-%d" % (os.path.basename(target),
                                                len(os.listdir(ctx.workdir))))
    open(path, "w").write(text)
    lst = open(os.path.join(build, "initramfs.list")).read()
    lst, n = re.subn(r"^file %s .*$" % re.escape(target),
                     "file %s %s 0644 0 0" % (target, path), lst, flags=re.M)
    assert n == 1, "the initramfs carries no " + target
    lpath = path + ".list"
    open(lpath, "w").write(lst)
    out = initramfs_path(dev)  # the kernel tells xz by its magic, whatever the name
    if os.path.lexists(out):
        os.unlink(out)
    with open(out, "wb") as f:
        cpio = subprocess.Popen([os.path.join(build, "mkcpio"), lpath], stdout=subprocess.PIPE)
        subprocess.check_call(["xz", "-0", "--check=crc32", "-T1"], stdin=cpio.stdout, stdout=f)
        assert cpio.wait() == 0


def initramfs_with_manifest(ctx, dev, manifest):
    """Rebuilds the board's initramfs into dev's images with another /etc/strata/manifest."""
    initramfs_with(ctx, dev, "/etc/strata/manifest", manifest)
