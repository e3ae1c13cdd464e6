include $(sort $(wildcard $(BR2_EXTERNAL_STRATA_PATH)/package/*/*.mk))
