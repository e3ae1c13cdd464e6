# SPDX-License-Identifier: GPL-2.0-only
# The part of OpenWrt's rules.mk the strata recipe uses (see buildroot.mk).
INCLUDE_DIR := $(TOPDIR)/include
PKG_BUILD_DIR = $(BUILD_DIR)/$(PKG_NAME)-$(PKG_VERSION)
TARGET_CROSS ?=
# about as OpenWrt has them for x86_64 with its default hardening (regular
# SSP, full RELRO), less -fhonour-copts, an option of OpenWrt's own gcc
TARGET_CFLAGS = -Os -pipe -fno-caller-saves -fno-plt -fstack-protector -Wl,-z,now -Wl,-z,relro
TARGET_LDFLAGS = -znow -zrelro
SOURCE_DATE_EPOCH ?= 0
