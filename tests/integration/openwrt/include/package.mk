# SPDX-License-Identifier: GPL-2.0-only
# The part of OpenWrt's package.mk the strata recipe uses: BuildPackage runs
# prepare, configure, compile, then the package's install into its ipkg tree.
define BuildPackage
all:
	$$(call Build/Prepare)
	$$(call Build/Configure)
	$$(call Build/Compile)
	mkdir -p $(IPKG_DIR)
	$$(call Package/$(1)/install,$(IPKG_DIR))
endef
