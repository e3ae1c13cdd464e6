# SPDX-License-Identifier: GPL-2.0-only
# strata: early-boot root filesystem assembler. See README.md.
#
#   make <board>_defconfig   configure (configs/)
#   make [menuconfig|olddefconfig|savedefconfig]
#   make                     build $(O)/images/
#   make run                 build the default board and boot it
#   make check               every test; last line "N passed, N failed"
#   make bench               boot-time, CPU, size figures
#   make fuzz                every fuzz target for FUZZ_SECONDS (default 60) each
#   make lint                cppcheck, clang-tidy, clang-format, shellcheck
#   make report              figures of the last fuzz run and fault campaign
#   make deps                install build and test dependencies (Debian)
#   make strata | install    the init alone | into DESTDIR (firmware builds)
#
# Variables: O=DIR (default output), V=1, CROSS_COMPILE=prefix-, DL_DIR=DIR,
#   ROOTFS=DIR|TARBALL, ADDONS="DIR|TARBALL[:optional] ...", KERNEL_DIR=DIR,
#   KERNEL=board|modular (the board's own kernel, or Debian's with modules),
#   TEST_OUT=DIR (tests' output, default output/test)

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

unquote = $(patsubst "%",%,$(1))
-include $(CONFIG)
BOARD := $(call unquote,$(CONFIG_STRATA_BOARD))
ROOTFS ?= $(call unquote,$(CONFIG_STRATA_ROOTFS))
ADDONS ?= $(call unquote,$(CONFIG_STRATA_ADDONS))
BOARD_DIR := $(TOPDIR)/board/$(BOARD)
ifneq ($(BOARD),)
include $(BOARD_DIR)/board.mk
endif

# Architectures: the only per-architecture knowledge outside board/. A board
# names its BOARD_ARCH (uname -m spelling); Debian's name for it, the kernel's,
# and the Debian package of its QEMU come from here.
HOST_ARCH := $(shell uname -m)
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

# Packages this configuration needs beyond tools/deps.sh's own list: the
# board's QEMU, and for Debian's ARCH-linux-musl- wrapper its compiler and libc.
cross_arch := $(patsubst %-linux-musl-,%,$(filter %-linux-musl-,$(CROSS_COMPILE)))
BOARD_DEPS := $(QEMU_PKG_$(BOARD_ARCH)) $(if $(cross_arch),gcc-$(cross_arch)-linux-gnu \
	musl-dev:$(or $(DEB_ARCH_$(cross_arch)),$(cross_arch)))
# init/lib: pure code, host-tested and fuzzed; init/boot: PID 1's phases;
# init/cmd: the runtime commands; init/main.c dispatches (README, Layout)
INIT_DIRS := lib boot cmd
INIT_SRCS := $(sort $(wildcard $(TOPDIR)/init/*.c $(INIT_DIRS:%=$(TOPDIR)/init/%/*.c)))
INIT_HDRS := $(wildcard $(INIT_DIRS:%=$(TOPDIR)/init/%/*.h))
INIT_INCLUDES := $(INIT_DIRS:%=-I$(TOPDIR)/init/%)
WARNINGS := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wmissing-prototypes \
	-Wstrict-prototypes -Wpointer-arith -Wvla -Wno-format-nonliteral -Wno-format-truncation
# Size: one segment per permission, no padding; common-page-size=64 keeps ld
# from padding the file to a page boundary before the data segment (it may
# share the text's last page, congruent modulo the page size as loaders need).
TARGET_CFLAGS := -std=gnu11 -Os -flto=auto -pthread $(WARNINGS) -static -fno-asynchronous-unwind-tables \
	-ffunction-sections -fdata-sections -Wl,--gc-sections -Wl,--build-id=none \
	-Wl,-z,noseparate-code -Wl,-z,norelro -Wl,-z,common-page-size=64 -fno-stack-protector \
	-DSTRATA_VERSION='"$(VERSION)"' -include $(BUILD)/strata_config.h $(INIT_INCLUDES)

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
ifeq ($(origin KERNEL_DIR),command line)
KERNEL_STAMP :=
else ifeq ($(KERNEL),board)
ifeq ($(BOARD_KERNEL_CONFIG),)
$(error KERNEL=board: board $(BOARD) has no kernel.config)
endif
KERNEL_DIR := $(BUILD)/kernel
KERNEL_STAMP := $(BUILD)/kernel.stamp
BOARD_DEPS += linux-source-6.12 bc bison flex libelf-dev libssl-dev \
	$(if $(filter-out $(HOST_ARCH),$(BOARD_ARCH)),gcc-$(BOARD_ARCH)-linux-gnu,gcc)
else ifeq ($(KERNEL),modular)
KERNEL_DIR := $(DL_DIR)/$(subst :,-,$(BOARD_KERNEL_PKG))
KERNEL_STAMP := $(KERNEL_DIR)/.complete
# Kernel modules the board's kernel package lacks are built from the same
# version's linux-source with the GNU cross compiler.
ifneq ($(BOARD_KERNEL_EXTRA_MODULES),)
BOARD_DEPS += $(if $(filter-out $(HOST_ARCH),$(BOARD_ARCH)),gcc-$(BOARD_ARCH)-linux-gnu,gcc)
endif
else
$(error KERNEL=$(KERNEL): expects board or modular)
endif

# A board of another architecture gets its busybox from Debian's package for
# that architecture, unpacked into the download cache (never installed: it
# would replace the host's /bin/busybox).
ifneq ($(BOARD_BUSYBOX_PKG),)
BOARD_BUSYBOX := $(DL_DIR)/$(BOARD_BUSYBOX_PKG)-$(BOARD_DEB_ARCH)/bin/busybox
endif

.PHONY: all run check check-powercut bench fuzz lint report deps unit clean distclean flash-erase menuconfig \
	print-warnings print-includes strata install \
	olddefconfig savedefconfig help FORCE
.DEFAULT_GOAL := all

print-warnings:
	@echo $(WARNINGS)

print-includes:
	@echo $(INIT_INCLUDES)

help:
	$(Q)sed -n '2,20s/^# \{0,1\}//p' $(TOPDIR)/Makefile

# SKIP_DEPS=1: a firmware build provides the host tools itself (README)
deps:
ifneq ($(SKIP_DEPS),1)
	$(Q)$(TOPDIR)/tools/deps.sh $(BOARD_DEPS)
endif

%_defconfig: deps FORCE
	$(Q)test -f $(TOPDIR)/configs/$@ || { echo "no configs/$@; boards: $$(ls $(TOPDIR)/configs)"; exit 2; }
	$(Q)! grep -Hn '^CONFIG_STRATA_\(UBI\|BLOCK\)=' $(TOPDIR)/configs/$@ || { echo "configs/$@:" \
		"CONFIG_STRATA_UBI and CONFIG_STRATA_BLOCK are now the flash back-end choice" \
		"(CONFIG_STRATA_FLASH_UBI_UBIFS, _BLOCK_EXT4, _BLOCK_F2FS)" >&2; exit 2; }
	$(Q)mkdir -p $(O)
	$(Q)kconfig-conf --defconfig=$(TOPDIR)/configs/$@ $(TOPDIR)/Kconfig >/dev/null
	@echo "configured $(O) from configs/$@"

menuconfig: deps
	$(Q)mkdir -p $(O)
	$(Q)kconfig-mconf $(TOPDIR)/Kconfig

olddefconfig: deps
	$(Q)mkdir -p $(O)
	$(Q)kconfig-conf --olddefconfig $(TOPDIR)/Kconfig >/dev/null

DEFCONFIG ?= $(TOPDIR)/configs/$(BOARD)_defconfig
savedefconfig: deps
	$(Q)kconfig-conf --savedefconfig=$(DEFCONFIG) $(TOPDIR)/Kconfig
	@echo "wrote $(DEFCONFIG)"

ifeq ($(wildcard $(CONFIG)),)
# No configuration yet: use the default board, then build.
all run strata: deps
	@echo "no configuration in $(O); using $(DEFAULT_DEFCONFIG)"
	$(Q)$(MAKE) -f $(TOPDIR)/Makefile O=$(O) $(DEFAULT_DEFCONFIG)
	$(Q)$(MAKE) -f $(TOPDIR)/Makefile O=$(O) $@
else

all: deps $(BUILD)/strata $(BUILD)/mkcpio $(BUILD)/mkverity $(KERNEL_STAMP) $(BOARD_BUSYBOX)
	$(Q)test "$(TARGET_MACHINE)" = "$(BOARD_ARCH)" || { echo "$(TARGET_CC) builds for" \
		"$(TARGET_MACHINE), board $(BOARD) is $(BOARD_ARCH): set CROSS_COMPILE, or" \
		"'make strata' for the init alone" >&2; exit 1; }
	$(Q)TOPDIR=$(TOPDIR) BUILD=$(BUILD) IMAGES=$(IMAGES) BOARD_DIR=$(BOARD_DIR) \
		KERNEL_DIR=$(KERNEL_DIR) STRATA_BIN=$(BUILD)/strata MKCPIO=$(BUILD)/mkcpio \
		MKVERITY=$(BUILD)/mkverity \
		BUSYBOX=$(BOARD_BUSYBOX) OVERLAYS="$(call unquote,$(CONFIG_STRATA_ROOTFS_OVERLAYS))" \
		ROOTFS="$(ROOTFS)" ADDONS="$(ADDONS)" ROOT_PART=$(call unquote,$(CONFIG_STRATA_ROOT_PART)) \
		UPPER_FS=$(lastword $(subst +, ,$(call unquote,$(CONFIG_STRATA_FLASH)))) \
		EMERGENCY_SHELL=$(CONFIG_STRATA_EMERGENCY_SHELL) \
		VERITY=$(CONFIG_STRATA_VERITY) VERITY_MODE=$(call unquote,$(CONFIG_STRATA_VERITY_MODE)) \
		FEC_ROOTS=$(or $(CONFIG_STRATA_DMVERITY_FEC_ROOTS),0) \
		INITRAMFS_COMP=$(if $(CONFIG_STRATA_INITRAMFS_GZIP),gzip,$(if $(CONFIG_STRATA_INITRAMFS_XZ),xz,none)) \
		MODULES_XZ=$(if $(CONFIG_STRATA_MODULES_XZ),y,n) \
		$(TOPDIR)/tools/mkimages.sh

run: all
	$(IMAGES)/start-qemu.sh

# The init alone, and the runtime tool installed into a root filesystem
# (DESTDIR) by a firmware build that assembles its own images.
strata: deps $(BUILD)/strata

install: $(BUILD)/strata
	$(Q)install -D -m 0755 $(BUILD)/strata $(DESTDIR)/sbin/strata
	$(Q)for name in firstboot factoryreset jffs2reset jffs2mark mount_root; do \
		ln -sf strata $(DESTDIR)/sbin/$$name; done

endif

$(BUILD)/strata_config.h: $(CONFIG) $(TOPDIR)/Kconfig $(TOPDIR)/tools/kconfig-header.sh \
		$(TOPDIR)/tools/check-config.sh
	@# a .config from an older Kconfig gets the new symbols' defaults, as the kernel's syncconfig
	$(Q)KCONFIG_CONFIG=$(CONFIG) kconfig-conf -s --olddefconfig $(TOPDIR)/Kconfig
	$(Q)$(TOPDIR)/tools/check-config.sh $(CONFIG)
	$(Q)mkdir -p $(BUILD)
	$(Q)$(TOPDIR)/tools/kconfig-header.sh $(TOPDIR)/Kconfig $(CONFIG) > $@.tmp && mv $@.tmp $@

# another compiler (CROSS_COMPILE=) rebuilds the init
$(BUILD)/target-cc: FORCE
	$(Q)mkdir -p $(BUILD)
	$(Q)echo "$(TARGET_CC)" | cmp -s - $@ || echo "$(TARGET_CC)" > $@

$(BUILD)/strata: $(INIT_SRCS) $(INIT_HDRS) $(BUILD)/strata_config.h $(BUILD)/target-cc
	@echo "  CC      strata ($(TARGET_CC))"
	$(Q)$(TARGET_CC) $(TARGET_CFLAGS) -o $@.unstripped $(INIT_SRCS)
	$(Q)$(TARGET_STRIP) -s -R .comment -o $@ $@.unstripped
	$(Q)if $(TARGET_READELF) -l $@ | grep -q INTERP; then echo "strata: not static (PT_INTERP present)" >&2; exit 1; fi
	@echo "  STRIP   strata: $$(stat -c %s $@) bytes ($(TARGET_MACHINE))"

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

# every step of the power-cut campaign (make check samples every third)
check-powercut: deps
	$(Q)POWERCUT_SWEEP=full $(TOPDIR)/tests/run.sh -k power_cut_campaign

unit: deps
	$(Q)$(TOPDIR)/tests/run.sh --unit-only

bench: deps
	$(Q)$(TOPDIR)/tests/bench.sh

FUZZ_SECONDS ?= 60
fuzz: deps
	$(Q)$(TOPDIR)/tests/fuzz/fuzz.sh --seconds $(FUZZ_SECONDS)

lint: deps
	$(Q)$(TOPDIR)/tests/lint.sh

report:
	$(Q)$(TOPDIR)/tests/report.sh

clean:
	rm -rf $(BUILD) $(IMAGES)

distclean:
	rm -rf $(O) $(DL_DIR)

FORCE:
