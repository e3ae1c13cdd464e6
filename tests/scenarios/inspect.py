# SPDX-License-Identifier: GPL-2.0-only
"""Introspection: layers, which, diff, status, analyze on a stack with known contents."""
import json
import xml.etree.ElementTree as ET

from scenario import scenario

# on ubifs: vanilla jffs2 cannot remove a lower directory, so it cannot
# make the opaque directory this stack needs (see flash.py)
NAND = "qemu_x86_64_nand"


def known_stack(vm):
    """only-lower /etc/inittab; copy-up /etc/os-release; whiteout /etc/group;
    opaque /etc/init.d; system-layer-only /etc/sysfile."""
    vm.sh("echo extra >> /etc/os-release && rm /etc/group")
    vm.sh("rm -rf /etc/init.d && mkdir /etc/init.d && echo x > /etc/init.d/new")
    vm.sh("echo sys > /run/strata/system/etc/sysfile && sync")


def jcmd(vm, cmd, rc=0):
    got, out = vm.sh(cmd, check=False)
    assert got == rc, (cmd, got, out)
    return json.loads(out)


def snapshot(vm):
    return vm.out("find /run/strata/data /run/strata/userdata -exec stat -c '%n %s %Y %i' {} + "
                  "| sort")


@scenario(NAND, collapsed=(NAND,))
def which_names_the_providing_layer(ctx):
    vm = ctx.machine().boot()
    known_stack(vm)
    before = snapshot(vm)

    def which(path, rc=0):
        return jcmd(vm, "strata which --json " + path, rc)

    base = {"metacopy": False, "redirect": None, "hidden_by_layer": None, "hidden_by_path": None,
            "hidden_by_kind": None, "lower": None, "layer_name": None, "object": None,
            "pinned_digest": None, "measured_digest": None}
    assert which("/etc/inittab") == dict(base, path="/etc/inittab", provided_by="lower",
                                         state="only", type="file", lower=0,
                                         layer_name="rootfs")
    assert which("/etc/os-release") == dict(base, path="/etc/os-release", provided_by="user",
                                            state="copy-up", type="file")
    assert which("/etc/sysfile") == dict(base, path="/etc/sysfile", provided_by="system",
                                         state="only", type="file")
    assert which("/etc/init.d") == dict(base, path="/etc/init.d", provided_by="user",
                                        state="opaque", type="directory")
    assert which("/etc/init.d/new") == dict(base, path="/etc/init.d/new", provided_by="user",
                                            state="only", type="file")
    # paths that do not exist: the whiteout or opaque directory that hides them
    assert which("/etc/group") == dict(base, path="/etc/group", provided_by=None,
                                       state="whiteout", type="", hidden_by_layer="user",
                                       hidden_by_path="/etc/group", hidden_by_kind="whiteout")
    assert which("/etc/init.d/rcS") == dict(base, path="/etc/init.d/rcS", provided_by=None,
                                            state="hidden", type="", hidden_by_layer="user",
                                            hidden_by_path="/etc/init.d",
                                            hidden_by_kind="opaque directory")
    assert which("/no/such", rc=1)["state"] == "absent"
    assert "a copy-up" in vm.out("strata which /etc/os-release")
    assert "not visible: the opaque directory /etc/init.d in the user layer hides it" in \
        vm.out("strata which /etc/init.d/rcS")
    assert vm.sh("strata which ../x", check=False)[0] == 2
    assert snapshot(vm) == before, "strata which wrote to the flash"


@scenario(NAND, collapsed=(NAND,))
def diff_lists_what_each_upper_changes(ctx):
    vm = ctx.machine().boot()
    known_stack(vm)
    before = snapshot(vm)
    d = jcmd(vm, "strata diff --json")
    assert d["layer"] == "user" and d["upper"] == "/run/strata/userdata/user.1/upper", d
    got = {c["path"]: (c["change"], c["type"], c["size"]) for c in d["changes"]}
    release_size = int(vm.out("stat -c %s /etc/os-release"))
    assert got == {
        "/etc/os-release": ("modified", "file", release_size),
        "/etc/group": ("deleted", "file", 0),
        "/etc/init.d": ("opaque", "directory", 0),
        "/etc/init.d/new": ("added", "file", 2),
    }, got
    assert d["total_size"] == release_size + 2
    s = jcmd(vm, "strata diff --system --json")
    assert [(c["path"], c["change"], c["size"]) for c in s["changes"]] == \
        [("/etc/sysfile", "added", 4)], s
    text = vm.out("strata diff")
    assert "D /etc/group" in text and "O /etc/init.d" in text and "4 changes" in text, text
    assert snapshot(vm) == before, "strata diff wrote to the flash"


@scenario(NAND, collapsed=(NAND,))
def layers_status_and_analyze(ctx):
    vm = ctx.machine().boot()
    known_stack(vm)
    before = snapshot(vm)
    layers = jcmd(vm, "strata layers --json")["layers"]
    assert [(l["layer"], l["stack"], l["dir"], l["fstype"], l["source"], l["readonly"],
             l["state"]) for l in layers] == [
        ("user", "root", "/run/strata/userdata/user.1/upper", "ubifs", "ubi0:rootfs_user", False,
         "read-write"),
        ("system", "system", "/run/strata/data/system.1/upper", "ubifs", "ubi0:rootfs_data",
         False, "read-write"),
        ("lower0", "system", "/run/strata/lower/0", "squashfs", "/dev/ubiblock0_0", True,
         "verified"),
    ], layers
    assert 0 < layers[0]["free"] < layers[0]["size"] <= 16 << 20, layers[0]
    verity = layers[2]["verity"]
    assert "size" not in layers[2] and layers[0]["verity"] is None, layers
    assert verity["state"] == "verified" and verity["expected"] == verity["measured"], verity
    assert verity["measured"] == ctx.boot_record(vm)["verity"][0]["measured"]
    assert "lower0   system  /run/strata/lower/0" in vm.out("strata layers")

    status = vm.out("strata status")
    assert "flash:     /run/strata/data:" in status and "KiB used of" in status, status
    assert "flash:     /run/strata/userdata:" in status, status
    assert "layers:    system generation 1, user generation 1" in status, status

    rec = ctx.boot_record(vm)
    a = jcmd(vm, "strata analyze --json")
    assert [p["name"] for p in a["phases"]] == [p["name"] for p in rec["phases"]]
    assert abs(a["total_ms"] - (rec["exec_ns"] - rec["init_start_ns"]) / 1e6) < 0.01
    table = vm.out("strata analyze")
    assert all(p["name"] in table for p in rec["phases"]) and "total" in table
    vm.sh("strata analyze --svg /tmp/boot.svg")
    svg = vm.out("cat /tmp/boot.svg")
    root = ET.fromstring(svg)  # well-formed
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for p in rec["phases"]:
        assert p["name"] in texts, p["name"]
    assert len(list(root.iter("{http://www.w3.org/2000/svg}rect"))) == len(rec["phases"]) + 1
    assert vm.sh("strata analyze --svg /nonexistent/dir/x.svg", check=False)[0] == 1
    assert snapshot(vm) == before, "introspection wrote to the flash"
