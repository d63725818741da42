# A unit whose line table ends on a row at its end-of-sequence address (as
# gcc's output sometimes does): the row covers no byte. Code linked after it
# without debug information must have no line, not this file's last one.
# Written by hand (.debug_line version 2, one compile unit) because whether a
# compiler emits such a row depends on its version and options.
	.text
	.globl	with_lines
	.type	with_lines, @function
with_lines:
	nop
	nop
	nop
	nop
	nop
	nop
	nop
	ret
.Lend:
	.size	with_lines, .-with_lines

	.section	.debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1
	.uleb128 0x11	# DW_TAG_compile_unit
	.byte	0	# no children
	.uleb128 0x10	# DW_AT_stmt_list
	.uleb128 0x06	# DW_FORM_data4
	.uleb128 0x03	# DW_AT_name
	.uleb128 0x08	# DW_FORM_string
	.uleb128 0x1b	# DW_AT_comp_dir
	.uleb128 0x08	# DW_FORM_string
	.uleb128 0x11	# DW_AT_low_pc
	.uleb128 0x01	# DW_FORM_addr
	.uleb128 0x12	# DW_AT_high_pc
	.uleb128 0x01	# DW_FORM_addr
	.byte	0, 0
	.byte	0

	.section	.debug_info,"",@progbits
	.long	.Linfo_end - .Linfo
.Linfo:
	.short	2
	.long	.Labbrev
	.byte	8
	.uleb128 1
	.long	.Lline
	.asciz	"endrow.c"
	.asciz	"/src"
	.quad	with_lines
	.quad	.Lend
.Linfo_end:

	.section	.debug_line,"",@progbits
.Lline:
	.long	.Lline_end - .Lline_v
.Lline_v:
	.short	2
	.long	.Lhdr_end - .Lhdr
.Lhdr:
	.byte	1, 1, -5, 14, 13	# min_inst, default_is_stmt, line_base, line_range, opcode_base
	.byte	0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1
	.byte	0		# no include directories
	.asciz	"endrow.c"
	.byte	0, 0, 0
	.byte	0		# end of the file names
.Lhdr_end:
	.byte	0, 9, 2		# DW_LNE_set_address
	.quad	with_lines
	.byte	3		# advance_line: 10
	.sleb128 9
	.byte	1		# copy
	.byte	2		# advance_pc 4
	.uleb128 4
	.byte	3		# line 11
	.sleb128 1
	.byte	1
	.byte	2		# advance_pc 4: the end of with_lines
	.uleb128 4
	.byte	3		# line 411
	.sleb128 400
	.byte	1		# copy: a row of no byte
	.byte	0, 1, 1		# DW_LNE_end_sequence, at the same address
.Lline_end:
	.section	.note.GNU-stack,"",@progbits
