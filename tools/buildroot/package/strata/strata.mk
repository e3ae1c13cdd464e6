################################################################################
#
# strata
#
################################################################################

# The source tree this external tree lives in.
STRATA_VERSION = local
STRATA_SITE = $(BR2_EXTERNAL_STRATA_PATH)/../..
STRATA_SITE_METHOD = local
STRATA_LICENSE = GPL-2.0-only
STRATA_DEPENDENCIES = host-squashfs
STRATA_DEFCONFIG = $(call qstrip,$(BR2_PACKAGE_STRATA_DEFCONFIG))

# strata's own make interface: configure, build the static init, install the
# runtime tool; the init for the initramfs is $(@D)/output/build/strata.
# Buildroot's target flags (hardening, optimisation) come after strata's own.
STRATA_MAKE = $(TARGET_MAKE_ENV) $(MAKE) -C $(@D) O=$(@D)/output \
	CROSS_COMPILE=$(TARGET_CROSS) CFLAGS="$(TARGET_CFLAGS)" LDFLAGS="$(TARGET_LDFLAGS)" \
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) SKIP_DEPS=1

define STRATA_CONFIGURE_CMDS
	$(STRATA_MAKE) $(STRATA_DEFCONFIG)_defconfig
endef

define STRATA_BUILD_CMDS
	$(STRATA_MAKE) strata
endef

define STRATA_INSTALL_TARGET_CMDS
	$(STRATA_MAKE) DESTDIR=$(TARGET_DIR) install
endef

$(eval $(generic-package))
