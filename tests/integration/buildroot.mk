# SPDX-License-Identifier: GPL-2.0-only
# The part of Buildroot's package infrastructure a generic-package uses, to
# run tools/buildroot's package the way Buildroot runs it: the source is
# copied into the package's build directory ($(@D)), then its configure,
# build and target-install commands run there.
# usage: make -f buildroot.mk BR2_EXTERNAL_STRATA_PATH=... BUILD_DIR=... TARGET_DIR=...
BR2_PACKAGE_STRATA_DEFCONFIG = "qemu_x86_64_nor"
TARGET_CROSS ?=
# about as Buildroot has them with BR2_FORTIFY_SOURCE_1 and BR2_RELRO_FULL
TARGET_CFLAGS = -D_LARGEFILE_SOURCE -D_LARGEFILE64_SOURCE -D_FILE_OFFSET_BITS=64 -Os -g0 -D_FORTIFY_SOURCE=1
TARGET_LDFLAGS = -Wl,-z,relro -Wl,-z,now
TARGET_MAKE_ENV = PATH="$(PATH)"
SOURCE_DATE_EPOCH ?= 0
qstrip = $(strip $(subst ",,$(1)))

define generic-package
$(BUILD_DIR)/strata-$(STRATA_VERSION)/.stamp_target_installed:
	mkdir -p $$(@D)
	cd $(STRATA_SITE) && tar --exclude=./output --exclude=./dl --exclude=./.git -cf - . | \
		tar -C $$(@D) -xf -
	$$(STRATA_CONFIGURE_CMDS)
	$$(STRATA_BUILD_CMDS)
	$$(STRATA_INSTALL_TARGET_CMDS)
	touch $$@
all: $(BUILD_DIR)/strata-$(STRATA_VERSION)/.stamp_target_installed
endef

include $(BR2_EXTERNAL_STRATA_PATH)/external.mk
.DEFAULT_GOAL := all
