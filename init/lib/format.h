/* SPDX-License-Identifier: GPL-2.0-only */
/* A small printf engine without floating point: what strata's messages use. Pure code. */
#ifndef STRATA_FORMAT_H
#define STRATA_FORMAT_H

#include <stdarg.h>
#include <stdio.h>

/*
 * vfprintf for the conversions strata uses: %d %i %u %x %X %o %c %s %p %m
 * %%, flags '-' '0' ' ' '+' '#', width and precision (numbers or '*'), and
 * the length modifiers hh h l ll j z t. Output goes through fwrite. Returns
 * the number of characters the format produces (also when the stream
 * truncates, as vsnprintf's does), -1 for a conversion it does not know.
 */
int format_vfprintf(FILE *f, const char *fmt, va_list ap);

#endif
