# SPDX-License-Identifier: GPL-2.0-only
# The part of OpenWrt's rules.mk the strata recipe uses (see buildroot.mk).
INCLUDE_DIR := $(TOPDIR)/include
PKG_BUILD_DIR = $(BUILD_DIR)/$(PKG_NAME)-$(PKG_VERSION)
TARGET_CROSS ?=
SOURCE_DATE_EPOCH ?= 0
