# SPDX-License-Identifier: GPL-2.0-only
# strata: early-boot root filesystem assembler. See README.md and docs/building.md.
#
# Targets:
#   make <board>_defconfig   configure O from configs/ (make help lists them)
#   make menuconfig | olddefconfig | savedefconfig   edit, update, write back
#   make [all]               every image of the board into O/images/
#   make rootfs              only the root tree, O/build/rootfs (no kernel, no images)
#   make strata | install    the init alone | the runtime tool into DESTDIR
#   make run                 make deps, build the board (default qemu_x86_64_nor), boot it
#   make check               make deps, every test; last line "N passed, N failed, N skipped"
#   make check-powercut      make deps, every step of the power-cut campaign
#   make check-hostile       make deps, every hostile-content case on NOR and NAND
#   make unit | lint | fuzz  host checks (no QEMU) | static analysis | fuzz targets
#   make docs-commands       write docs/commands.md from the commands' usage (host build)
#   make bench | report      boot-time, CPU, size figures | last fuzz and fault figures
#   make flash-erase         start the device's flash state over, then make all
#   make deps                install the Debian packages of every target (root)
#   make clean | distclean   remove O's build and images | O and DL_DIR
# Every target but deps, run and the check targets only checks for the
# packages it needs and stops naming the missing ones (SKIP_DEPS=1: the build
# provides them).
#
# Variables (command line or environment):
#   O=DIR             output (default output/)      V=1  verbose
#   BOARD=NAME        configure O from configs/NAME_defconfig when it has no .config
#   ROOTFS=DIR|TARBALL  the root filesystem (Kconfig STRATA_ROOTFS; default: busybox)
#   OVERLAYS="DIR ..."  directories laid over the root, any root (STRATA_OVERLAYS)
#   ADDONS="DIR|TARBALL[:optional] ..."  add-on layers, top first (STRATA_ADDONS)
#   VERSION=V         the firmware's version (default: git describe):
#                     /etc/strata/version, update.bundle's
#   UPDATE_KEY=FILE   the signify secret key of images/update.bundle, FILE.pub
#                     beside it (STRATA_UPDATE_KEY; default: a development key in O/dev-key/)
#   CROSS_COMPILE=prefix-  the target's static toolchain (default: musl-gcc)
#   CFLAGS=, LDFLAGS=  the target's flags, after strata's own (a builder's win)
#   KERNEL_DIR=DIR    a kernel of the builder's (modules, modules.builtin, kernel)
#   KERNEL=board|modular  the board's own kernel, or Debian's with modules
#   DESTDIR=DIR       where make install puts sbin/strata
#   DL_DIR=DIR        download cache (default dl/)   HOSTCC=cc  host compiler
#   SOURCE_DATE_EPOCH=N  the date of every file in the images (default: last commit)
#   SKIP_DEPS=1       neither install nor check Debian packages
#   DEFCONFIG=FILE    where savedefconfig writes (default configs/BOARD_defconfig)
#   TEST_OUT=DIR      tests' output (default output/test); FUZZ_SECONDS=N (60)

# override: build systems that call this Makefile have a TOPDIR of their own
override TOPDIR := $(CURDIR)
O ?= output
override O := $(abspath $(O))
BUILD := $(O)/build
IMAGES := $(O)/images
CONFIG := $(O)/.config
DL_DIR ?= $(TOPDIR)/dl
DEFAULT_DEFCONFIG := qemu_x86_64_nor_defconfig
export KCONFIG_CONFIG := $(CONFIG)

ifeq ($(V),1)
Q :=
else
Q := @
MAKEFLAGS += --no-print-directory
endif

VERSION := $(shell cd $(TOPDIR) && git describe --always --dirty 2>/dev/null || echo unknown)
SOURCE_DATE_EPOCH ?= $(shell cd $(TOPDIR) && git log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH

# a Kconfig string's value (Buildroot's qstrip): "a b" is the two words a b
unquote = $(strip $(subst ",,$(1)))
-include $(CONFIG)
CONFIG_BOARD := $(call unquote,$(CONFIG_STRATA_BOARD))
# BOARD=NAME on the command line: the board an O without a configuration is
# configured for (configs/NAME_defconfig); a configured O must be that board's
ifeq ($(origin BOARD),command line)
ifeq ($(wildcard $(TOPDIR)/board/$(BOARD)/board.mk),)
$(error BOARD=$(BOARD): no board/$(BOARD)/board.mk; boards: $(notdir $(patsubst %/board.mk,%,$(wildcard $(TOPDIR)/board/*/board.mk))))
endif
ifneq ($(CONFIG_BOARD),)
ifneq ($(BOARD),$(CONFIG_BOARD))
ifeq ($(filter %_defconfig,$(MAKECMDGOALS)),)
$(error BOARD=$(BOARD): $(O) is configured for $(CONFIG_BOARD); run "make $(BOARD)_defconfig" first, or use another O=)
endif
endif
endif
DEFAULT_DEFCONFIG := $(BOARD)_defconfig
else
BOARD := $(CONFIG_BOARD)
endif
ROOTFS ?= $(call unquote,$(CONFIG_STRATA_ROOTFS))
OVERLAYS ?= $(call unquote,$(CONFIG_STRATA_OVERLAYS))
ADDONS ?= $(call unquote,$(CONFIG_STRATA_ADDONS))
UPDATE_KEY ?= $(call unquote,$(CONFIG_STRATA_UPDATE_KEY))
# STRATA_ROOTFS_OVERLAYS laid the test root's files over every root; it is
# now two symbols (Kconfig, "Images"). Its old default means the same as the
# new defaults and is left to olddefconfig; any other value is the builder's
# to move.
ifneq ($(filter-out overlays/rootfs,$(call unquote,$(CONFIG_STRATA_ROOTFS_OVERLAYS))),)
$(error CONFIG_STRATA_ROOTFS_OVERLAYS="$(call unquote,$(CONFIG_STRATA_ROOTFS_OVERLAYS))": \
	the overlays are now CONFIG_STRATA_BUILTIN_ROOT_OVERLAYS (over the built-in busybox root \
	only) and CONFIG_STRATA_OVERLAYS or OVERLAYS= (over any root); set those instead)
endif
BOARD_DIR := $(TOPDIR)/board/$(BOARD)
ifneq ($(BOARD),)
include $(BOARD_DIR)/board.mk
endif

# Updates: a board with an update.conf (its A/B slots, docs/updates.md) gets
# it in the root as /etc/strata/update.conf, with the build's version and the
# public key of the signing key, and its images as images/update.bundle. The
# key is the builder's (UPDATE_KEY, KEY.pub beside it), or else a development
# key pair made once in $(O)/dev-key/ (kept by make clean), which every build
# says is not for release.
UPDATE_CONF := $(if $(BOARD),$(wildcard $(BOARD_DIR)/update.conf))
DEV_KEY := $(O)/dev-key/strata.sec
UPDATE_SEC := $(if $(UPDATE_KEY),$(if $(filter /%,$(UPDATE_KEY)),$(UPDATE_KEY),$(TOPDIR)/$(UPDATE_KEY)),$(DEV_KEY))
UPDATE_DEV_KEY := $(if $(UPDATE_CONF),$(if $(UPDATE_KEY),,$(DEV_KEY)))
UPDATE_ENV := UPDATE_CONF=$(UPDATE_CONF) UPDATE_KEY="$(UPDATE_SEC)" \
	UPDATE_DEV_KEY=$(if $(UPDATE_DEV_KEY),y,n) VERSION="$(VERSION)" BOARD=$(BOARD)

# Architectures: the only per-architecture knowledge outside board/. A board
# names its BOARD_ARCH (uname -m spelling); Debian's name for it, the kernel's,
# and the Debian package of its QEMU come from here.
HOST_ARCH := $(shell uname -m)
ARCHS := x86_64 aarch64
DEB_ARCH_x86_64 := amd64
DEB_ARCH_aarch64 := arm64
KERNEL_ARCH_x86_64 := x86
KERNEL_ARCH_aarch64 := arm64
KERNEL_IMAGE_x86_64 := bzImage
KERNEL_IMAGE_aarch64 := Image
QEMU_PKG_x86_64 := qemu-system-x86
QEMU_PKG_aarch64 := qemu-system-arm
BOARD_ARCH ?= $(HOST_ARCH)
BOARD_DEB_ARCH := $(or $(DEB_ARCH_$(BOARD_ARCH)),$(BOARD_ARCH))

# The init is a static binary: musl-gcc natively, $(CROSS_COMPILE)gcc otherwise.
# A board of another architecture implies Debian's musl cross wrapper.
ifneq ($(BOARD_ARCH),$(HOST_ARCH))
CROSS_COMPILE ?= $(BOARD_ARCH)-linux-musl-
endif
ifeq ($(CROSS_COMPILE),)
TARGET_CC := musl-gcc
else
TARGET_CC := $(CROSS_COMPILE)gcc
endif
# Debian's ARCH-linux-musl-gcc is a wrapper without binutils of its own: ask
# the compiler which strip and readelf belong to it.
TARGET_STRIP = $(shell $(TARGET_CC) -print-prog-name=strip)
TARGET_READELF = $(shell $(TARGET_CC) -print-prog-name=readelf)
TARGET_MACHINE = $(firstword $(subst -, ,$(shell $(TARGET_CC) -dumpmachine)))
HOSTCC ?= gcc

# The toolchain's packages: musl-tools natively; for Debian's ARCH-linux-musl-
# wrapper (a bare prefix of a known architecture) its compiler and libc; any
# other CROSS_COMPILE is the builder's toolchain, found or not in PATH.
cross_arch := $(strip $(foreach a,$(ARCHS),$(if $(filter $(a)-linux-musl-,$(CROSS_COMPILE)),$(a))))
cross_pkgs = gcc-$(1)-linux-gnu musl-dev:$(DEB_ARCH_$(1))
TARGET_CC_PKGS := $(if $(CROSS_COMPILE),$(if $(cross_arch),$(call cross_pkgs,$(cross_arch))),musl-tools)
# init/lib: pure code, host-tested and fuzzed; init/boot: PID 1's phases;
# init/cmd: the runtime commands; init/main.c dispatches (docs/layout.md)
INIT_DIRS := lib boot cmd
INIT_SRCS := $(sort $(wildcard $(TOPDIR)/init/*.c $(INIT_DIRS:%=$(TOPDIR)/init/%/*.c)))
INIT_HDRS := $(wildcard $(INIT_DIRS:%=$(TOPDIR)/init/%/*.h) $(INIT_DIRS:%=$(TOPDIR)/init/%/*.def))
# OpenWrt's names for strata's commands: links in the root and in make install's DESTDIR
OPENWRT_NAMES := $(shell sed -n 's/^OPENWRT_NAME.\([a-z0-9_]*\),.*/\1/p' \
	$(TOPDIR)/init/cmd/openwrt_names.def)
INIT_INCLUDES := $(INIT_DIRS:%=-I$(TOPDIR)/init/%)
WARNINGS := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wmissing-prototypes \
	-Wstrict-prototypes -Wpointer-arith -Wvla -Wno-format-nonliteral -Wno-format-truncation
# Size: one segment per permission, no padding; common-page-size=64 keeps ld
# from padding the file to a page boundary before the data segment (it may
# share the text's last page, congruent modulo the page size as loaders need).
#
# Stack protector: PID 1 parses what is on the writable flash, which a
# compromised userland can write (the boot-outcome record, read while the
# layers are still being verified; the upper's requests), and every layer's
# verification rests on it: a stack overflow there would run code as PID 1 and
# persist across boots. With -fstack-protector a smashed stack crashes PID 1
# instead (the kernel panics; panic= reboots). It checks every function with
# a char array (8 bytes or more), which is where text from the flash is
# parsed; -strong would add those with any array or an address-taken local
# (struct stat and the like). Measured on qemu_x86_64_nor (musl-gcc 12,
# static, -Oz, LTO, with updates): none 176,520 bytes stripped; this 177,480;
# -strong 183,496, over the board's 176 KiB. -Oz is 1,856 bytes smaller than
# -Os; the hash loops are built -O2 whatever the level (BUILT_AT_O2), so the
# digest of a 128 MiB file takes the same time with either (122 ms, SHA-NI).
# The hot path, the fs-verity digest of a 128 MiB layer
# (tests/bench/fsverity_bench.c with these flags, best of 7), took 103.8 ms
# without and 105.3 ms with -strong (SHA-NI), 494 and 483 ms (portable code):
# within the noise. A builder's -fno-stack-protector or -fstack-protector-strong
# (CFLAGS) wins.
TARGET_CFLAGS := -std=gnu11 -Oz -flto=auto -pthread $(WARNINGS) -static -fno-asynchronous-unwind-tables \
	-ffunction-sections -fdata-sections -Wl,--gc-sections -Wl,--build-id=none \
	-Wl,-z,noseparate-code -Wl,-z,norelro -Wl,-z,common-page-size=64 -fstack-protector \
	-DSTRATA_VERSION='"$(VERSION)"' -include $(BUILD)/strata_config.h $(INIT_INCLUDES)
# A firmware build's CFLAGS and LDFLAGS (command line or environment, as
# Buildroot's TARGET_CFLAGS and OpenWrt's) come last: where they disagree
# with the flags above (-fno-stack-protector, -Wl,-z,relro, -O2), the
# builder's win.
TARGET_FLAGS = $(TARGET_CFLAGS) $(CFLAGS) $(LDFLAGS)

# The kernel. KERNEL_DIR=DIR on the command line: a firmware build's own,
# DIR holding lib/modules/<release>/ (modules_install INSTALL_MOD_PATH=DIR)
# or modules.builtin (every listed module built in), and optionally the
# kernel image as DIR/kernel; nothing is built or downloaded then.
# Otherwise KERNEL=board (the default where the board has a kernel.config):
# built from Debian's linux-source with that fragment, everything built in,
# kept in a cache outside the tree (tools/mkkernel.sh); KERNEL=modular:
# Debian's kernel image package (BOARD_KERNEL_PKG), the board's modules
# loaded by the init.
BOARD_KERNEL_CONFIG ?= $(wildcard $(BOARD_DIR)/kernel.config)
KERNEL_FRAGMENTS := $(TOPDIR)/board/kernel.config $(BOARD_KERNEL_CONFIG)
KERNEL ?= $(if $(BOARD_KERNEL_CONFIG),board,modular)
KERNEL_BUILD_PKGS := linux-source-6.12 bc bison flex libelf-dev libssl-dev
kernel_cc_pkg = $(if $(filter-out $(HOST_ARCH),$(1)),gcc-$(1)-linux-gnu,gcc)
ifeq ($(origin KERNEL_DIR),command line)
KERNEL_STAMP :=
KERNEL_PKGS :=
else ifeq ($(KERNEL),board)
ifeq ($(BOARD_KERNEL_CONFIG),)
$(error KERNEL=board: board $(BOARD) has no kernel.config)
endif
KERNEL_DIR := $(BUILD)/kernel
KERNEL_STAMP := $(BUILD)/kernel.stamp
KERNEL_PKGS := $(KERNEL_BUILD_PKGS) $(call kernel_cc_pkg,$(BOARD_ARCH))
else ifeq ($(KERNEL),modular)
KERNEL_DIR := $(DL_DIR)/$(subst :,-,$(BOARD_KERNEL_PKG))
KERNEL_STAMP := $(KERNEL_DIR)/.complete
# Kernel modules the board's kernel package lacks are built from the same
# version's linux-source with the GNU cross compiler.
KERNEL_PKGS := $(if $(BOARD_KERNEL_EXTRA_MODULES),$(call kernel_cc_pkg,$(BOARD_ARCH)))
else
$(error KERNEL=$(KERNEL): expects board or modular)
endif

# A board of another architecture gets its busybox from Debian's package for
# that architecture, unpacked into the download cache (never installed: it
# would replace the host's /bin/busybox).
ifneq ($(BOARD_BUSYBOX_PKG),)
BOARD_BUSYBOX := $(DL_DIR)/$(BOARD_BUSYBOX_PKG)-$(BOARD_DEB_ARCH)/bin/busybox
endif

.PHONY: all run check check-powercut check-hostile bench fuzz lint report deps unit docs-commands clean distclean \
	flash-erase menuconfig \
	print-warnings print-includes print-target-flags strata install rootfs \
	olddefconfig savedefconfig help FORCE
.DEFAULT_GOAL := all

print-warnings:
	@echo $(WARNINGS)

print-includes:
	@echo $(INIT_INCLUDES)

# the compiler and flags the init is built with, as shell words (make bench
# compiles each source with them, without LTO, to weigh the parts of the binary)
print-target-flags:
	@echo '$(subst ','\'',$(TARGET_CC) $(TARGET_FLAGS))'

help:
	$(Q)sed -n '2,/^$$/s/^# \{0,1\}//p' $(TOPDIR)/Makefile
	@echo "Boards (BOARD=): $(notdir $(patsubst %/board.mk,%,$(wildcard $(TOPDIR)/board/*/board.mk)))"
	@echo "Configurations (make NAME_defconfig): $(patsubst %_defconfig,%,$(notdir $(wildcard $(TOPDIR)/configs/*_defconfig)))"

# ---- host packages ---------------------------------------------------------
# What the targets need of the host, as Debian packages. make deps installs
# them (apt-get, as root), for every architecture's boards; make run and make
# check run it first, so that the README's two commands set up a fresh
# machine (docs/building.md lists the packages). Every other target only checks, before it starts, for what it
# needs itself (dpkg-query; command -v for a builder's CROSS_COMPILE), and
# stops naming what is missing, as Buildroot's dependency check does: the
# host of a firmware build is its builder's to change. SKIP_DEPS=1: the
# build system provides the tools (no dpkg; nothing checked or installed).
PKGS_config := kconfig-frontends-nox
PKGS_init := $(PKGS_config) $(TARGET_CC_PKGS)
PKGS_rootfs := $(PKGS_init) busybox-static python3 $(if $(UPDATE_CONF),signify-openbsd)
PKGS_images := $(PKGS_rootfs) gcc libc6-dev squashfs-tools mtd-utils cpio xz-utils gzip kmod \
	e2fsprogs f2fs-tools fsverity libfsverity-dev cryptsetup-bin fdisk util-linux $(KERNEL_PKGS)
PKGS_lint := $(PKGS_config) cppcheck clang-tidy clang-format shellcheck
PKGS_fuzz := $(PKGS_config) clang libclang-rt-dev
PKGS_docs := $(PKGS_config) gcc libc6-dev
# the host tests with the harness, mkverity, fuzz and lint, and the build tests (make rootfs)
PKGS_unit := $(PKGS_rootfs) $(PKGS_lint) $(PKGS_fuzz) gcc libc6-dev libfsverity-dev fsverity \
	squashfs-tools util-linux signify-openbsd libubootenv-tool grub-common grub-pc-bin \
	u-boot-qemu u-boot-tools qemu-system-arm qemu-system-x86 fdisk e2fsprogs
PKGS_boot := $(PKGS_images) $(QEMU_PKG_$(BOARD_ARCH))
# make bench: the boots, and on the host the installer's throughput and peak
# RSS (signed bundles, GNU time) and the binary's sizes
PKGS_bench := $(PKGS_boot) signify-openbsd time binutils
# make deps: the tests build and boot every board, each architecture's
arch_pkgs = $(QEMU_PKG_$(1)) $(call kernel_cc_pkg,$(1)) \
	$(if $(filter-out $(HOST_ARCH),$(1)),$(call cross_pkgs,$(1)))
PKGS_deps = $(sort $(PKGS_unit) $(PKGS_bench) $(KERNEL_BUILD_PKGS) valgrind \
	$(foreach a,$(ARCHS),$(call arch_pkgs,$(a))))

# What each goal checks for (PKGS_<CHECK_goal>); deps, run and the check
# targets install instead, and a goal not named needs nothing (help,
# clean, report, print-*).
CHECK_menuconfig := config
CHECK_olddefconfig := config
CHECK_savedefconfig := config
CHECK_strata := init
CHECK_install := init
CHECK_rootfs := rootfs
CHECK_all := images
CHECK_flash-erase := images
CHECK_bench := bench
CHECK_unit := unit
CHECK_lint := lint
CHECK_fuzz := fuzz
CHECK_docs-commands := docs
goal_check = $(or $(CHECK_$(1)),$(if $(filter %_defconfig,$(1)),config))
GOAL_CHECKS := $(sort $(foreach g,$(or $(MAKECMDGOALS),$(.DEFAULT_GOAL)),$(call goal_check,$(g))))
ifneq ($(SKIP_DEPS),1)
GOAL_PKGS := $(sort $(foreach c,$(GOAL_CHECKS),$(PKGS_$(c))))
ifneq ($(GOAL_PKGS),)
DEPS_MISSING := $(shell $(TOPDIR)/tools/deps.sh --check $(GOAL_PKGS) 2>&1)
ifneq ($(DEPS_MISSING),)
$(error $(DEPS_MISSING); run "make deps" (as root), or set SKIP_DEPS=1 where the build provides them)
endif
endif
# a builder's toolchain is no Debian package: it is in PATH or named whole
ifneq ($(filter init rootfs images boot,$(GOAL_CHECKS)),)
ifeq ($(TARGET_CC_PKGS)$(shell command -v $(TARGET_CC)),)
$(error CROSS_COMPILE=$(CROSS_COMPILE): no $(TARGET_CC), neither in PATH nor as a file)
endif
endif
endif

deps:
ifneq ($(SKIP_DEPS),1)
	$(Q)$(TOPDIR)/tools/deps.sh $(PKGS_deps)
endif

%_defconfig: FORCE
	$(Q)test -f $(TOPDIR)/configs/$@ || { echo "no configs/$@; boards: $$(ls $(TOPDIR)/configs)"; exit 2; }
	$(Q)! grep -Hn '^CONFIG_STRATA_\(UBI\|BLOCK\)=' $(TOPDIR)/configs/$@ || { echo "configs/$@:" \
		"CONFIG_STRATA_UBI and CONFIG_STRATA_BLOCK are now the flash back-end choice" \
		"(CONFIG_STRATA_FLASH_UBI_UBIFS, _BLOCK_EXT4, _BLOCK_F2FS)" >&2; exit 2; }
	$(Q)! grep -Hn '^CONFIG_STRATA_ROOTFS_OVERLAYS=' $(TOPDIR)/configs/$@ || { echo "configs/$@:" \
		"CONFIG_STRATA_ROOTFS_OVERLAYS is now CONFIG_STRATA_BUILTIN_ROOT_OVERLAYS (over the" \
		"built-in busybox root) and CONFIG_STRATA_OVERLAYS (over any root)" >&2; exit 2; }
	$(Q)mkdir -p $(O)
	$(Q)kconfig-conf --defconfig=$(TOPDIR)/configs/$@ $(TOPDIR)/Kconfig >/dev/null
	@echo "configured $(O) from configs/$@"

menuconfig:
	$(Q)mkdir -p $(O)
	$(Q)kconfig-mconf $(TOPDIR)/Kconfig

olddefconfig:
	$(Q)mkdir -p $(O)
	$(Q)kconfig-conf --olddefconfig $(TOPDIR)/Kconfig >/dev/null

DEFCONFIG ?= $(TOPDIR)/configs/$(BOARD)_defconfig
savedefconfig:
	$(Q)kconfig-conf --savedefconfig=$(DEFCONFIG) $(TOPDIR)/Kconfig
	@echo "wrote $(DEFCONFIG)"

# make run: a fresh machine's first command (deps first, then the build)
run: deps
	$(Q)$(MAKE) -f $(TOPDIR)/Makefile O=$(O) all
	$(IMAGES)/start-qemu.sh

ifeq ($(wildcard $(CONFIG)),)
# No configuration yet: use the default board (or BOARD=), then build.
all strata rootfs install:
	@echo "no configuration in $(O); using $(DEFAULT_DEFCONFIG)"
	$(Q)$(MAKE) -f $(TOPDIR)/Makefile O=$(O) $(DEFAULT_DEFCONFIG)
	$(Q)$(MAKE) -f $(TOPDIR)/Makefile O=$(O) $@
else

# the root tree alone, and everything else of the images
MKROOTFS := TOPDIR=$(TOPDIR) BUILD=$(BUILD) STRATA_BIN=$(BUILD)/strata BUSYBOX=$(BOARD_BUSYBOX) \
	ROOTFS="$(ROOTFS)" OVERLAYS="$(OVERLAYS)" $(UPDATE_ENV) \
	BUILTIN_OVERLAYS="$(call unquote,$(CONFIG_STRATA_BUILTIN_ROOT_OVERLAYS))" \
	$(TOPDIR)/tools/mkrootfs.sh

rootfs: $(BUILD)/strata $(BOARD_BUSYBOX) $(UPDATE_DEV_KEY)
	$(Q)$(MKROOTFS)

all: $(BUILD)/strata $(BUILD)/mkcpio $(BUILD)/mkverity $(KERNEL_STAMP) $(BOARD_BUSYBOX) $(UPDATE_DEV_KEY)
	$(Q)test "$(TARGET_MACHINE)" = "$(BOARD_ARCH)" || { echo "$(TARGET_CC) builds for" \
		"$(TARGET_MACHINE), board $(BOARD) is $(BOARD_ARCH): set CROSS_COMPILE, or" \
		"'make strata' for the init alone" >&2; exit 1; }
	$(Q)$(MKROOTFS)
	$(Q)TOPDIR=$(TOPDIR) BUILD=$(BUILD) IMAGES=$(IMAGES) BOARD_DIR=$(BOARD_DIR) \
		KERNEL_DIR=$(KERNEL_DIR) STRATA_BIN=$(BUILD)/strata MKCPIO=$(BUILD)/mkcpio \
		MKVERITY=$(BUILD)/mkverity BUSYBOX=$(BOARD_BUSYBOX) \
		ROOTFS="$(ROOTFS)" ADDONS="$(ADDONS)" ROOT_PART=$(call unquote,$(CONFIG_STRATA_ROOT_PART)) \
		UPPER_FS=$(lastword $(subst +, ,$(call unquote,$(CONFIG_STRATA_FLASH)))) \
		EMERGENCY_SHELL=$(CONFIG_STRATA_EMERGENCY_SHELL) \
		VERITY=$(CONFIG_STRATA_VERITY) VERITY_MODE=$(call unquote,$(CONFIG_STRATA_VERITY_MODE)) \
		FEC_ROOTS=$(or $(CONFIG_STRATA_DMVERITY_FEC_ROOTS),0) \
		INITRAMFS_COMP=$(if $(CONFIG_STRATA_INITRAMFS_GZIP),gzip,$(if $(CONFIG_STRATA_INITRAMFS_XZ),xz,none)) \
		MODULES_XZ=$(if $(CONFIG_STRATA_MODULES_XZ),y,n) $(UPDATE_ENV) \
		$(TOPDIR)/tools/mkimages.sh

# The init alone, and the runtime tool installed into a root filesystem
# (DESTDIR) by a firmware build that assembles its own images.
strata: $(BUILD)/strata

install: $(BUILD)/strata
	$(Q)install -D -m 0755 $(BUILD)/strata $(DESTDIR)/sbin/strata
	$(Q)for name in $(OPENWRT_NAMES); do \
		ln -sf strata $(DESTDIR)/sbin/$$name; done

endif

# A .config from an older Kconfig gets the new symbols' defaults before this
# Makefile reads it (make remakes an included file, then reads it again), as
# the kernel's syncconfig: else the first build after a Kconfig change would
# see a new symbol empty (the built-in root without its overlays). Without
# kconfig-conf yet (before make deps) it is left as it is.
ifneq ($(wildcard $(CONFIG)),)
$(CONFIG): $(TOPDIR)/Kconfig
	$(Q)if command -v kconfig-conf >/dev/null; then \
		kconfig-conf -s --olddefconfig $(TOPDIR)/Kconfig && touch $@; fi
endif

$(BUILD)/strata_config.h: $(CONFIG) $(TOPDIR)/Kconfig $(TOPDIR)/tools/kconfig-header.sh \
		$(TOPDIR)/tools/check-config.sh
	@# a .config from an older Kconfig gets the new symbols' defaults, as the kernel's syncconfig
	$(Q)KCONFIG_CONFIG=$(CONFIG) kconfig-conf -s --olddefconfig $(TOPDIR)/Kconfig
	$(Q)$(TOPDIR)/tools/check-config.sh $(CONFIG)
	$(Q)mkdir -p $(BUILD)
	$(Q)$(TOPDIR)/tools/kconfig-header.sh $(TOPDIR)/Kconfig $(CONFIG) > $@.tmp && mv $@.tmp $@

# another compiler (CROSS_COMPILE=) or other flags (CFLAGS=, LDFLAGS=) rebuild the init
$(BUILD)/target-cc: FORCE
	$(Q)mkdir -p $(BUILD)
	$(Q)echo '$(subst ','\'',$(TARGET_CC) $(CFLAGS) $(LDFLAGS))' | cmp -s - $@ || \
		echo '$(subst ','\'',$(TARGET_CC) $(CFLAGS) $(LDFLAGS))' > $@

$(BUILD)/strata: $(INIT_SRCS) $(INIT_HDRS) $(BUILD)/strata_config.h $(BUILD)/target-cc
	@echo "  CC      strata ($(TARGET_CC)$(if $(strip $(CFLAGS) $(LDFLAGS)), $(strip $(CFLAGS) $(LDFLAGS))))"
	$(Q)$(TARGET_CC) $(TARGET_FLAGS) -o $@.unstripped $(INIT_SRCS)
	$(Q)$(TARGET_STRIP) -s -R .comment -o $@ $@.unstripped
	$(Q)if $(TARGET_READELF) -l $@ | grep -q INTERP; then echo "strata: not static (PT_INTERP present)" >&2; exit 1; fi
	@echo "  STRIP   strata: $$(stat -c %s $@) bytes ($(TARGET_MACHINE))"

# the development key pair of update bundles (tools/mkbundle.sh keeps one that exists)
$(DEV_KEY):
	$(Q)$(TOPDIR)/tools/mkbundle.sh --new-key $(@D)
	@echo "  KEY     $(@D)/: a development key pair for update bundles (not for release)"

$(BUILD)/mkcpio: $(TOPDIR)/tools/mkcpio.c
	$(Q)mkdir -p $(BUILD)
	$(Q)$(HOSTCC) -O2 $(WARNINGS) -o $@ $<

$(BUILD)/mkverity: $(TOPDIR)/tools/mkverity.c
	$(Q)mkdir -p $(BUILD)
	$(Q)$(HOSTCC) -O2 $(WARNINGS) -o $@ $< -lfsverity

ifeq ($(KERNEL),board)
# checked on every build (a hash of the fragment): a changed fragment, or
# another board's, links another cached kernel
$(KERNEL_STAMP): FORCE
	$(Q)CROSS_COMPILE=$(if $(filter-out $(HOST_ARCH),$(BOARD_ARCH)),$(BOARD_ARCH)-linux-gnu-) \
		$(TOPDIR)/tools/mkkernel.sh $(KERNEL_ARCH_$(BOARD_ARCH)) $(KERNEL_IMAGE_$(BOARD_ARCH)) \
		$(KERNEL_DIR) $(KERNEL_FRAGMENTS)
else
$(KERNEL_STAMP):
	$(Q)KERNEL_ARCH=$(KERNEL_ARCH_$(BOARD_ARCH)) \
		KERNEL_CROSS=$(if $(filter-out $(HOST_ARCH),$(BOARD_ARCH)),$(BOARD_ARCH)-linux-gnu-) \
		$(TOPDIR)/tools/fetch-kernel.sh $(BOARD_KERNEL_PKG) $(BOARD_DEB_ARCH) $(KERNEL_DIR) \
		$(BOARD_KERNEL_EXTRA_MODULES)
endif

ifneq ($(BOARD_BUSYBOX_PKG),)
$(BOARD_BUSYBOX):
	$(Q)$(TOPDIR)/tools/fetch-deb.sh $(BOARD_BUSYBOX_PKG):$(BOARD_DEB_ARCH) $(DL_DIR)/$(BOARD_BUSYBOX_PKG)-$(BOARD_DEB_ARCH)
endif

flash-erase:
	$(Q)rm -f $(IMAGES)/flash-*.bin
	$(Q)$(MAKE) -f $(TOPDIR)/Makefile O=$(O) all

check: deps
	$(Q)$(TOPDIR)/tests/run.sh

# every step of the power-cut campaign (make check cuts once per flash kind)
check-powercut: deps
	$(Q)POWERCUT_SWEEP=full $(TOPDIR)/tests/run.sh -k power_cut_campaign

# every hostile-content case booted on both flash kinds (make check boots each on one)
check-hostile: deps
	$(Q)HOSTILE_SWEEP=full $(TOPDIR)/tests/run.sh -k '^hostile_'

unit:
	$(Q)$(TOPDIR)/tests/run.sh --unit-only

bench:
	$(Q)$(TOPDIR)/tests/bench.sh

FUZZ_SECONDS ?= 60
fuzz:
	$(Q)$(TOPDIR)/tests/fuzz/fuzz.sh --seconds $(FUZZ_SECONDS)

lint:
	$(Q)$(TOPDIR)/tests/lint.sh

report:
	$(Q)$(TOPDIR)/tests/report.sh

# the usage texts of init/cmd/commands.c, as a host build prints them (tests/docs.sh compares)
docs-commands:
	$(Q)$(TOPDIR)/tools/host-strata.sh $(O)/host/strata
	$(Q)$(TOPDIR)/tools/commands-md.sh $(O)/host/strata > $(TOPDIR)/docs/commands.md.tmp
	$(Q)mv $(TOPDIR)/docs/commands.md.tmp $(TOPDIR)/docs/commands.md
	@echo "wrote docs/commands.md"

clean:
	rm -rf $(BUILD) $(IMAGES)

distclean:
	rm -rf $(O) $(DL_DIR)

FORCE:
