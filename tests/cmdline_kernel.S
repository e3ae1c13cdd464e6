/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A stand-in kernel for tests/grub.sh: a bzImage (Linux boot protocol
 * 2.06, not relocatable, loaded at 1 MiB) whose 32-bit entry prints the
 * command line its boot loader gave it on the first serial port and
 * resets the machine, so GRUB's linux and boot commands run for real and
 * each power-on is still one try.
 * as --32 -o cmdline_kernel.o cmdline_kernel.S
 * objcopy -O binary -j .text cmdline_kernel.o cmdline_kernel
 */
	.code16
	.text
	/* the boot sector: only its setup header is read */
	.org 0x1f1
	.byte 1			/* setup_sects: the setup code is one sector */
	.org 0x1fe
	.word 0xaa55		/* boot_flag */
	.org 0x202
	.ascii "HdrS"		/* header */
	.word 0x0206		/* version */
	.org 0x211
	.byte 0x01		/* loadflags: LOADED_HIGH (a bzImage) */
	.org 0x214
	.long 0x100000		/* code32_start */
	.org 0x238
	.long 255		/* cmdline_size */
	.org 0x400		/* the protected-mode code: loaded at code32_start */

	.code32
	movl 0x228(%esi), %ebx	/* %esi: boot_params; hdr.cmd_line_ptr */
	call 1f
	.asciz "strata-kernel: command line: "
1:	popl %ecx		/* the text above, wherever this runs */
	movw $0x3f8, %dx	/* COM1's transmit register */
2:	movb (%ecx), %al
	testb %al, %al
	jz 3f
	outb %al, %dx
	incl %ecx
	jmp 2b
3:	movb (%ebx), %al
	testb %al, %al
	jz 4f
	outb %al, %dx
	incl %ebx
	jmp 3b
4:	movb $10, %al
	outb %al, %dx
	movb $0xfe, %al		/* reset through the keyboard controller */
	outb %al, $0x64
5:	hlt
	jmp 5b
