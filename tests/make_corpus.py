#!/usr/bin/env python3
"""Writes the hostile-input corpus, tests/corpus/, and its manifest expected.tsv.

Every case is one file, one command and the exact outcome: the exit code and the
message ("{FILE}" stands for the file's path as given to kmeans-cli). The files are
committed too; run this again after changing a case:  tests/make_corpus.py

Commands (tests/test_corpus.cpp runs them, GOOD = good_6x2.csv, LABELS = good_labels.txt):
  run     kmeans-cli run --input FILE --k 2
  init    kmeans-cli run --input GOOD --k 2 --init FILE
  labels  kmeans-cli score --input GOOD --labels FILE
  truth   kmeans-cli score --input GOOD --labels LABELS --truth FILE
  f32     kmeans-cli run --input FILE --k 2 --precision f32
  weights kmeans-cli run --input GOOD --k 2 --weights FILE
For exit code 0 the message is "ok ROWSxCOLS" (run, init, f32: the loaded matrix) or
"ok N" (labels, truth, weights: the number of labels or weights); the runner also loads the file
in-process and compares. A failing row's message must equal the loader's
exception text exactly when the loader itself refuses the file, and must appear
on the CLI's stderr in every case. fuzz-*.bin cases are inputs the fuzz targets
(tests/fuzz/) once found troublesome.
"""
import bz2
import gzip
import lzma
import os
import struct
import sys
import zipfile
import io

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")

GOOD = b"0,0\n0,1\n1,0\n10,10\n10,11\n11,10\n"
GOOD_LABELS = b"0\n0\n0\n1\n1\n1\n"


def npy(descr, shape, data=b"", fortran=False, major=1, dict_text=None):
    """A .npy file built byte by byte (so that every header quirk can be made)."""
    if dict_text is None:
        dict_text = "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (
            descr if descr.startswith("[") else "'%s'" % descr, "True" if fortran else "False", shape)
    header = dict_text.encode("latin-1")
    prefix = 10 if major == 1 else 12
    while (prefix + len(header) + 1) % 64:
        header += b" "
    header += b"\n"
    length = struct.pack("<H", len(header)) if major == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([major, 0]) + length + header + data


def f8(*values, fmt="<d"):
    return b"".join(struct.pack(fmt, v) for v in values)


def vecs(rows, fmt):
    """TEXMEX .fvecs/.bvecs/.ivecs: each row its int32 dimension, then its values."""
    return b"".join(struct.pack("<i", len(row)) + b"".join(struct.pack("<" + fmt, v) for v in row) for row in rows)


def fbin(rows, cols, data):
    """big-ann-benchmarks .fbin/.u8bin/.i8bin/.ibin: uint32 rows, uint32 columns, the values."""
    return struct.pack("<II", rows, cols) + data


def zip_bytes(name, data):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        archive.writestr(info, data)
    return buffer.getvalue()


def deep_error():
    lines = [b"%d.25,%d.5" % (i, -i) for i in range(20000)]
    lines[17345] = b"17345.25,-17345.5,1"
    return b"\n".join(lines) + b"\n"


NAN = float("nan")
INF = float("inf")

# (file, bytes, command, exit code, message)
CASES = [
    # ---- text that loads
    ("good_6x2.csv", GOOD, "run", 0, "ok 6x2"),
    ("good_labels.txt", GOOD_LABELS, "labels", 0, "ok 6"),
    ("ok_header.csv", b"x,y\n" + GOOD, "run", 0, "ok 6x2"),
    ("ok_crlf.csv", GOOD.replace(b"\n", b"\r\n"), "run", 0, "ok 6x2"),
    ("ok_bom.csv", b"\xef\xbb\xbf" + GOOD, "run", 0, "ok 6x2"),
    ("ok_bom_header_crlf.csv", b"\xef\xbb\xbfx,y\r\n" + GOOD.replace(b"\n", b"\r\n"), "run", 0, "ok 6x2"),
    ("ok_tabs.tsv", GOOD.replace(b",", b"\t"), "run", 0, "ok 6x2"),
    ("ok_semicolons.csv", GOOD.replace(b",", b";"), "run", 0, "ok 6x2"),
    ("ok_comments_blanks.txt", b"# generated\n\n" + GOOD.replace(b"\n", b"  # point\n\n"), "run", 0, "ok 6x2"),
    ("ok_benchmark_set.txt", b"    664159    550946\n    665845    557965\n    597173    575538\n    618600    551446\n",
     "run", 0, "ok 4x2"),
    ("ok_no_final_newline.csv", GOOD.rstrip(b"\n"), "run", 0, "ok 6x2"),
    ("ok_exponents_signs.csv", b"1e3,-2.5E-3\n+4,+0.5\n-0,1E+2\n", "run", 0, "ok 3x2"),
    ("ok_underflow_to_zero.csv", b"1e-400,2\n3,-1e-999\n", "run", 0, "ok 2x2"),
    ("ok_one_column.txt", b"1\n2\n3\n", "run", 0, "ok 3x1"),
    ("ok_long_digits.csv", b"0.1000000000000000055511151231257827021181583404541015625,1\n2,3\n", "run", 0, "ok 2x2"),
    # ---- ragged rows and separators
    ("ragged_more.csv", b"1,2\n3,4,5\n", "run", 1, "{FILE}:2: expected 2 values, found 3 (separated by ',', as on line 1)"),
    ("ragged_fewer.txt", b"1 2\n3 4\n5\n", "run", 1, "{FILE}:3: expected 2 values, found 1 (separated by spaces or tabs, as on line 1)"),
    ("ragged_last_line_no_newline.csv", b"1,2\n3,4\n5,6,7", "run", 1, "{FILE}:3: expected 2 values, found 3 (separated by ',', as on line 1)"),
    ("ragged_deep_line_17346.csv", deep_error(), "run", 1, "{FILE}:17346: expected 2 values, found 3 (separated by ',', as on line 1)"),
    ("ragged_after_header.csv", b"x,y\n1,2\n3\n", "run", 1, "{FILE}:3: expected 2 values, found 1 (separated by ',', as on line 2)"),
    ("sep_decimal_comma.csv", b"1;2\n3;4,5\n", "run", 1, "{FILE}:2: not a number: '4,5' (column 2)"),
    ("sep_comma_and_semicolon.csv", b"1,5;2,5\n", "run", 1, "{FILE}:1: both ',' and ';' appear on the first data line, so the separator is ambiguous (decimal commas are not supported)"),
    ("sep_changes_later.csv", b"1,2\n3;4\n", "run", 1, "{FILE}:2: not a number: '3;4' (column 1)"),
    ("sep_space_inside_field.csv", b"1,2\n3 4,5\n", "run", 1, "{FILE}:2: not a number: '3 4' (column 1)"),
    ("sep_empty_field.csv", b"1,2,3\n4,,6\n", "run", 1, "{FILE}:2: empty value in column 2"),
    ("sep_trailing_comma.csv", b"1,2\n3,4,\n", "run", 1, "{FILE}:2: empty value in column 3"),
    ("sep_leading_comma.csv", b"1,2\n,3,4\n", "run", 1, "{FILE}:2: empty value in column 1"),
    ("sep_nbsp.csv", b"1\xc2\xa02\n3\xc2\xa04\n", "run", 1, "{FILE}:1: not a number: '1\\xC2\\xA02' (column 1)"),
    ("sep_old_mac_cr.csv", b"1,2\r3,4\r5,6\r", "run", 1, "{FILE}:1: not a number: '2\\x0D3' (column 2); a carriage return inside a line: only \\n and \\r\\n line endings are supported"),
    # ---- numbers that are not coordinates
    ("num_nan.csv", b"1,2\nnan,3\n", "run", 1, "{FILE}:2: NaN is not a valid coordinate: 'nan' (column 1)"),
    ("num_nan_first_line.txt", b"NaN 1\n2 3\n", "run", 1, "{FILE}:1: NaN is not a valid coordinate: 'NaN' (column 1)"),
    ("num_inf.csv", b"1,2\n3,-inf\n", "run", 1, "{FILE}:2: an infinite value is not a valid coordinate: '-inf' (column 2)"),
    ("num_infinity_word.csv", b"1,2\nInfinity,3\n", "run", 1, "{FILE}:2: an infinite value is not a valid coordinate: 'Infinity' (column 1)"),
    ("num_overflow.csv", b"1,2\n3,1e400\n", "run", 1, "{FILE}:2: number too large for a double: '1e400' (column 2)"),
    ("num_overflow_negative.csv", b"1,2\n-1.8e308,4\n", "run", 1, "{FILE}:2: number too large for a double: '-1.8e308' (column 1)"),
    ("num_overflow_400_digits.csv", b"1,2\n" + b"9" * 400 + b",4\n", "run", 1, "{FILE}:2: number too large for a double: '" + "9" * 40 + "...' (column 1)"),
    ("num_hex_float.csv", b"1,2\n0x1p3,4\n", "run", 1, "{FILE}:2: not a number: '0x1p3' (column 1)"),
    ("num_hex_int.csv", b"1,2\n0x10,4\n", "run", 1, "{FILE}:2: not a number: '0x10' (column 1)"),
    ("num_plus_minus.csv", b"1,2\n+-3,4\n", "run", 1, "{FILE}:2: not a number: '+-3' (column 1)"),
    ("num_double_minus.csv", b"1,2\n--3,4\n", "run", 1, "{FILE}:2: not a number: '--3' (column 1)"),
    ("num_trailing_junk.csv", b"1,2\n3,4.5x\n", "run", 1, "{FILE}:2: not a number: '4.5x' (column 2)"),
    ("num_two_dots.csv", b"1,2\n3,4.5.6\n", "run", 1, "{FILE}:2: not a number: '4.5.6' (column 2)"),
    ("num_fullwidth_digits.csv", "1,2\n\uff13,4\n".encode(), "run", 1, "{FILE}:2: not a number: '\\xEF\\xBC\\x93' (column 1)"),
    ("num_nul_inside.csv", b"1,2\n3\x004,5\n", "run", 1, "{FILE}:2: not a number: '3\\x004' (column 1)"),
    # ---- files that are not data
    ("empty.csv", b"", "run", 1, "{FILE}: empty file: no data rows"),
    ("bom_only.csv", b"\xef\xbb\xbf", "run", 1, "{FILE}: empty file: no data rows"),
    ("only_comments.txt", b"# nothing\n\n   \n", "run", 1, "{FILE}: no data rows: the file has only blank lines and '#' comments"),
    ("header_only.csv", b"x,y\n", "run", 1, "{FILE}:1: only a header row, no data rows"),
    ("header_names_mismatch.csv", b"x,y,z\n1,2\n", "run", 1, "{FILE}:1: the header row has 3 names but line 2 has 2 values (separated by ',')"),
    ("two_text_lines.txt", b"hello world\nstill words\n", "run", 1, "{FILE}:2: not a number: 'still' (column 1)"),
    ("partly_numeric_first_line.csv", b"1,abc\n2,3\n", "run", 1, "{FILE}:1: not a number: 'abc' (column 2)"),
    ("utf16le_bom.csv", "\ufeff1,2\n3,4\n".encode("utf-16-le"), "run", 1, "{FILE}: byte 0: UTF-16 text is not supported: save the file as UTF-8"),
    ("utf16be_bom.csv", "\ufeff1,2\n3,4\n".encode("utf-16-be"), "run", 1, "{FILE}: byte 0: UTF-16 text is not supported: save the file as UTF-8"),
    ("utf16le_no_bom.csv", "1,2\n3,4\n".encode("utf-16-le"), "run", 1, "{FILE}:1: not a number: '1\\x00' (column 1)"),
    ("utf32le_bom.csv", "\ufeff1,2\n".encode("utf-32-le"), "run", 1, "{FILE}: byte 0: UTF-32 text is not supported: save the file as UTF-8"),
    ("utf32be_bom.csv", "\ufeff1,2\n".encode("utf-32-be"), "run", 1, "{FILE}: byte 0: UTF-32 text is not supported: save the file as UTF-8"),
    ("gzip.csv.gz", gzip.compress(GOOD, mtime=0), "run", 1, "{FILE}: byte 0: gzip-compressed data, not text: decompress the file first (the loaders read delimited text and NumPy .npy)"),
    ("gzip_named.csv", gzip.compress(GOOD, mtime=0), "run", 1, "{FILE}: byte 0: gzip-compressed data, not text: decompress the file first (the loaders read delimited text and NumPy .npy)"),
    ("bzip2.csv.bz2", bz2.compress(GOOD), "run", 1, "{FILE}: byte 0: bzip2-compressed data, not text: decompress the file first (the loaders read delimited text and NumPy .npy)"),
    ("xz.csv.xz", lzma.compress(GOOD), "run", 1, "{FILE}: byte 0: xz-compressed data, not text: decompress the file first (the loaders read delimited text and NumPy .npy)"),
    ("zstd_magic.csv.zst", b"\x28\xb5\x2f\xfd\x00\x58\x00\x00", "run", 1, "{FILE}: byte 0: zstd-compressed data, not text: decompress the file first (the loaders read delimited text and NumPy .npy)"),
    ("zip.zip", zip_bytes("data.csv", GOOD), "run", 1, "{FILE}: byte 0: ZIP archive data, not text: decompress the file first (the loaders read delimited text and NumPy .npy)"),
    ("binary_garbage.bin", b"\x01\x02\xff\x00 7\n", "run", 1, "{FILE}:1: not a number: '\\x01\\x02\\xFF\\x00' (column 1)"),
    ("binary_elf.bin", b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b"\x02\x00\x3e\x00", "run", 1, "{FILE}:1: not a number: '\\x7FELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00>\\x00' (column 1)"),
    ("text_named.npy", b"1,2\n3,4\n", "run", 1, "{FILE}: byte 0: not a NumPy .npy file: it does not start with the magic \"\\x93NUMPY\""),
    # ---- .npy that loads
    ("ok_npy_f8.npy", npy("<f8", "(3, 2)", f8(0, 0, 1, 1, 10, 10)), "run", 0, "ok 3x2"),
    ("ok_npy_f4_big_endian.npy", npy(">f4", "(2, 2)", f8(1, 2, 3, 4, fmt=">f")), "run", 0, "ok 2x2"),
    ("ok_npy_i8.npy", npy("<i8", "(2, 2)", f8(1, -2, 3, 4, fmt="<q")), "run", 0, "ok 2x2"),
    ("ok_npy_u1.npy", npy("|u1", "(4,)", bytes([0, 1, 254, 255])), "run", 0, "ok 4x1"),
    ("ok_npy_v2.npy", npy("<f8", "(2, 1)", f8(1, 2), major=2), "run", 0, "ok 2x1"),
    ("ok_npy_v3_python2_shape.npy", npy("<f8", "(2L, 1L)", f8(1, 2), major=3), "run", 0, "ok 2x1"),
    # ---- .npy that does not
    ("npy_truncated_magic.npy", b"\x93NUMPY\x01", "run", 1, "{FILE}: byte 7: truncated .npy file: the header is cut short"),
    ("npy_truncated_header.npy", npy("<f8", "(2, 2)", f8(1, 2, 3, 4))[:40], "run", 1, "{FILE}: byte 40: truncated .npy file: the header should be 118 bytes from byte 10, the file ends first"),
    ("npy_truncated_data.npy", npy("<f8", "(2, 2)", f8(1, 2, 3)), "run", 1, "{FILE}: byte 152: truncated .npy file: shape (2, 2) of '<f8' needs 32 data bytes after byte 128, found 24"),
    ("npy_trailing_bytes.npy", npy("<f8", "(2, 1)", f8(1, 2) + b"xyz"), "run", 1, "{FILE}: byte 144: 3 unexpected bytes after the array data"),
    ("npy_version_4.npy", npy("<f8", "(1,)", f8(1), major=1)[:6] + b"\x04\x00" + npy("<f8", "(1,)", f8(1))[8:], "run", 1, "{FILE}: byte 6: unsupported .npy format version 4.0 (supported: 1.0, 2.0, 3.0)"),
    ("npy_fortran_order.npy", npy("<f8", "(2, 2)", f8(1, 2, 3, 4), fortran=True), "run", 1, "{FILE}: byte 44: Fortran-order (column-major) arrays are not supported: save with np.save(path, np.ascontiguousarray(a))"),
    ("npy_3d.npy", npy("<f8", "(1, 1, 2)", f8(1, 2)), "run", 1, "{FILE}: byte 60: expected a 1-D or 2-D array (points × coordinates), the shape is (1, 1, 2)"),
    ("npy_0d.npy", npy("<f8", "()", f8(1)), "run", 1, "{FILE}: byte 60: expected a 1-D or 2-D array (points × coordinates), the shape is ()"),
    ("npy_empty_array.npy", npy("<f8", "(0, 2)"), "run", 1, "{FILE}: byte 60: empty array (shape (0, 2)): no data"),
    ("npy_shape_negative.npy", npy("<f8", "(-1, 2)", f8(1, 2)), "run", 1, "{FILE}: byte 61: bad .npy header: expected a non-negative integer in the shape"),
    ("npy_shape_too_large.npy", npy("<f8", "(4611686018427387904, 4)", f8(1)), "run", 1, "{FILE}: byte 60: shape (4611686018427387904, 4) is too large"),
    ("npy_shape_digits_overflow.npy", npy("<f8", "(99999999999999999999999, 1)", f8(1)), "run", 1, "{FILE}: byte 80: bad .npy header: shape value too large"),
    ("npy_dtype_complex.npy", npy("<c16", "(1,)", f8(1, 2)), "run", 1, "{FILE}: byte 20: bad .npy header: unsupported dtype '<c16' (supported: float32/float64 and 8- to 64-bit integers, e.g. '<f8', '<f4', '<i8', '<i4')"),
    ("npy_dtype_float16.npy", npy("<f2", "(2,)", b"\x00\x3c\x00\x40"), "run", 1, "{FILE}: byte 20: bad .npy header: unsupported dtype '<f2' (supported: float32/float64 and 8- to 64-bit integers, e.g. '<f8', '<f4', '<i8', '<i4')"),
    ("npy_dtype_bool.npy", npy("|b1", "(2,)", b"\x00\x01"), "run", 1, "{FILE}: byte 20: bad .npy header: unsupported dtype '|b1' (supported: float32/float64 and 8- to 64-bit integers, e.g. '<f8', '<f4', '<i8', '<i4')"),
    ("npy_dtype_unicode.npy", npy("<U3", "(1,)", "abc".encode("utf-32-le")), "run", 1, "{FILE}: byte 20: bad .npy header: unsupported dtype '<U3' (supported: float32/float64 and 8- to 64-bit integers, e.g. '<f8', '<f4', '<i8', '<i4')"),
    ("npy_dtype_object.npy", npy("|O", "(1,)", b"\x80\x04N."), "run", 1, "{FILE}: byte 20: bad .npy header: unsupported dtype '|O' (supported: float32/float64 and 8- to 64-bit integers, e.g. '<f8', '<f4', '<i8', '<i4')"),
    ("npy_dtype_structured.npy", npy("[('x', '<f8'), ('y', '<f8')]", "(1,)", f8(1, 2)), "run", 1, "{FILE}: byte 20: bad .npy header: structured dtypes (descr is a list of fields) are not supported"),
    ("npy_dtype_no_byte_order_f8.npy", npy("|f8", "(1,)", f8(1)), "run", 1, "{FILE}: byte 20: bad .npy header: dtype '|f8' has no byte order ('|') but items of 8 bytes"),
    ("npy_dtype_huge_size.npy", npy("<f99999999999999999999", "(1,)", f8(1)), "run", 1, "{FILE}: byte 20: bad .npy header: unsupported dtype '<f99999999999999999999' (supported: float32/float64 and 8- to 64-bit integers, e.g. '<f8', '<f4', '<i8', '<i4')"),
    ("npy_missing_shape.npy", npy("", "", dict_text="{'descr': '<f8', 'fortran_order': False}", data=f8(1)), "run", 1, "{FILE}: byte 10: bad .npy header: missing key 'shape'"),
    ("npy_extra_key.npy", npy("", "", dict_text="{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}", data=f8(1)), "run", 1, "{FILE}: byte 66: bad .npy header: unexpected key 'x'"),
    ("npy_duplicate_key.npy", npy("", "", dict_text="{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", data=f8(1)), "run", 1, "{FILE}: byte 36: bad .npy header: duplicate key 'descr'"),
    ("npy_unterminated_string.npy", npy("", "", dict_text="{'descr': '<f8"), "run", 1, "{FILE}: byte 64: bad .npy header: unterminated string"),
    ("npy_escape_in_string.npy", npy("", "", dict_text="{'descr': '<f\\x38', 'fortran_order': False, 'shape': (1,)}", data=f8(1)), "run", 1, "{FILE}: byte 23: bad .npy header: escape sequences in header strings are not supported"),
    ("npy_header_not_a_dict.npy", npy("", "", dict_text="[1, 2]"), "run", 1, "{FILE}: byte 10: bad .npy header: expected '{' starting the header dictionary"),
    ("npy_fortran_not_bool.npy", npy("", "", dict_text="{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}", data=f8(1)), "run", 1, "{FILE}: byte 44: bad .npy header: expected True or False"),
    ("npy_nan.npy", npy("<f8", "(2, 1)", f8(1, NAN)), "run", 1, "{FILE}: byte 136: NaN is not a valid coordinate (element [1, 0])"),
    ("npy_inf_f4.npy", npy("<f4", "(2, 2)", f8(1, 2, -INF, 4, fmt="<f")), "run", 1, "{FILE}: byte 136: an infinite value is not a valid coordinate (element [1, 0])"),
    # ---- the ANN benchmarks' headerless binary formats (named by their extension)
    ("ok_fvecs.fvecs", vecs([[0, 0], [1, 1], [10, 10]], "f"), "run", 0, "ok 3x2"),
    ("ok_fvecs_f32.fvecs", vecs([[0, 0], [1, 1], [10, 10]], "f"), "f32", 0, "ok 3x2"),
    ("ok_bvecs.bvecs", vecs([[0, 1], [254, 255]], "B"), "run", 0, "ok 2x2"),
    ("ok_ivecs.ivecs", vecs([[1, -2, 3], [4, 5, -6]], "i"), "run", 0, "ok 2x3"),
    ("ok_fbin.fbin", fbin(3, 2, f8(0, 0, 1, 1, 10, 10, fmt="<f")), "run", 0, "ok 3x2"),
    ("ok_u8bin.u8bin", fbin(2, 2, bytes([0, 1, 254, 255])), "run", 0, "ok 2x2"),
    ("ok_i8bin.i8bin", fbin(2, 2, bytes([0, 1, 254, 255])), "run", 0, "ok 2x2"),
    ("ok_ibin.ibin", fbin(2, 1, f8(-7, 7, fmt="<i")), "run", 0, "ok 2x1"),
    ("fvecs_empty.fvecs", b"", "run", 1, "{FILE}: empty .fvecs file: no data"),
    ("fvecs_short.fvecs", b"\x02\x00", "run", 1, "{FILE}: byte 2: truncated .fvecs file: the first row's dimension (an int32) is cut short"),
    ("fvecs_zero_dimension.fvecs", vecs([[]], "f"), "run", 1, "{FILE}: byte 0: the first row's dimension is 0: each row of a .fvecs file starts with its number of values, a positive int32"),
    ("fvecs_negative_dimension.fvecs", struct.pack("<i", -1) + f8(1, fmt="<f"), "run", 1, "{FILE}: byte 0: the first row's dimension is -1: each row of a .fvecs file starts with its number of values, a positive int32"),
    ("fvecs_truncated.fvecs", vecs([[0, 0], [1, 1]], "f") + b"\x02\x00\x00\x00\x00", "run", 1, "{FILE}: byte 24: truncated .fvecs file: 5 bytes after the last whole row (rows of 2 float32 values take 12 bytes each)"),
    ("fvecs_mixed_dimensions.fvecs", vecs([[0, 0]], "f") + struct.pack("<i", 3) + f8(1, 1, fmt="<f"), "run", 1, "{FILE}: byte 12: row 1 has dimension 3, the first row 2: the rows of a .fvecs file must all have one dimension"),
    ("fvecs_nan.fvecs", vecs([[1, 2], [NAN, 4]], "f"), "run", 1, "{FILE}: byte 16: NaN is not a valid coordinate (element [1, 0])"),
    ("fbin_short_header.fbin", b"\x02\x00\x00\x00\x02", "run", 1, "{FILE}: byte 5: truncated .fbin file: its header (uint32 rows, uint32 columns) takes 8 bytes"),
    ("fbin_empty_shape.fbin", fbin(0, 2, b""), "run", 1, "{FILE}: byte 0: empty array (its header says 0 × 2): no data"),
    ("fbin_truncated.fbin", fbin(2, 2, f8(1, 2, 3, fmt="<f")), "run", 1, "{FILE}: byte 20: truncated .fbin file: its header says 2 × 2 float32 values, which need 16 bytes after byte 8, found 12"),
    ("fbin_trailing_bytes.fbin", fbin(1, 2, f8(1, 2, fmt="<f") + b"xy"), "run", 1, "{FILE}: byte 16: 2 unexpected bytes after the array data"),
    ("fbin_shape_too_large.fbin", fbin(0xFFFFFFFF, 0xFFFFFFFF, b""), "run", 1, "{FILE}: byte 0: its header's shape 4294967295 × 4294967295 is too large"),
    ("fbin_inf.fbin", fbin(2, 1, f8(1, INF, fmt="<f")), "run", 1, "{FILE}: byte 12: an infinite value is not a valid coordinate (element [1, 0])"),
    ("labels_ivecs.ivecs", vecs([[0], [0], [0], [1], [1], [1]], "i"), "labels", 1, "{FILE}: labels are read from text or a .npy file, not from .ivecs"),
    ("init_fvecs.fvecs", vecs([[0, 0], [10, 10]], "f"), "init", 0, "ok 2x2"),
    # ---- initial centroids (--init FILE): loaded like data, then checked against it
    ("init_ok.csv", b"0,0\n10,10\n", "init", 0, "ok 2x2"),
    ("init_nan.csv", b"0,0\nnan,10\n", "init", 1, "{FILE}:2: NaN is not a valid coordinate: 'nan' (column 1)"),
    ("init_wrong_dimension.csv", b"0,0,0\n10,10,10\n", "init", 1, "{FILE}: the initial centroids are 2 rows × 3 columns; expected k = 2 rows × d = 2 columns"),
    ("init_wrong_count.csv", b"0,0\n10,10\n5,5\n", "init", 1, "{FILE}: the initial centroids are 3 rows × 2 columns; expected k = 2 rows × d = 2 columns"),
    # ---- labels (score --labels FILE) and true labels (score --truth FILE)
    ("labels_npy_i4.npy", npy("<i4", "(6,)", f8(0, 0, 0, 1, 1, 1, fmt="<i")), "labels", 0, "ok 6"),
    ("labels_decimal.txt", b"0\n0\n0\n1\n1\n1.5\n", "labels", 1, "{FILE}:6: not an integer label: '1.5' (column 1)"),
    ("labels_too_big.txt", b"0\n0\n0\n1\n1\n3000000000\n", "labels", 1, "{FILE}:6: label does not fit in a 32-bit integer: '3000000000' (column 1)"),
    ("labels_two_columns.txt", b"0 1\n0 1\n", "labels", 1, "{FILE}:1: expected 1 label per line, found 2"),
    ("labels_count_mismatch.txt", b"0\n0\n1\n1\n1\n", "labels", 1, "{FILE}: 5 labels, but {GOOD} has 6 points"),
    ("labels_empty.txt", b"", "labels", 1, "{FILE}: empty file: no data rows"),
    ("labels_npy_float.npy", npy("<f8", "(6,)", f8(0, 0, 0, 1, 1, 1)), "labels", 1, "{FILE}: byte 20: labels must be integers, the dtype is '<f8'"),
    ("labels_npy_2d.npy", npy("<i4", "(3, 2)", f8(0, 0, 0, 1, 1, 1, fmt="<i")), "labels", 1, "{FILE}: byte 60: labels must be a 1-D array, the shape is (3, 2)"),
    ("labels_npy_u8_too_big.npy", npy("<u8", "(6,)", f8(0, 0, 0, 1, 1, 1 << 63, fmt="<Q")), "labels", 1, "{FILE}: byte 168: label does not fit in a 32-bit integer (element 5)"),
    ("truth_ok.txt", b"1\n1\n1\n2\n2\n2\n", "truth", 0, "ok 6"),
    ("truth_count_mismatch.txt", b"1\n1\n2\n", "truth", 1, "{FILE}: 3 true labels, but {GOOD} has 6 points"),
    ("truth_text.txt", b"a\nb\n", "truth", 1, "{FILE}:2: not an integer label: 'b' (column 1)"),
    # ---- numeric extremes (issue 39): refused up front with the range, never a silent wrong answer
    ("range_underflow_f64.csv", b"1e-310,0\n1.1e-310,0\n1.2e-310,0\n7e-309,0\n7.05e-309,0\n7.1e-309,0\n", "run", 1,
     "{FILE}: coordinates spread over only 7e-309 (the largest max - min of a column), too little for f64 distances (limit 1.49167e-154): squared distances underflow to 0; rescale the data (multiply it by a power of two)"),
    ("range_underflow_f32.csv", b"0,0\n1e-25,0\n2e-25,0\n1e-23,0\n1.1e-23,0\n1.2e-23,0\n", "f32", 1, "{FILE}: coordinates spread over only 1.2e-23 (the largest max - min of a column), too little for f32 distances (limit 1.0842e-19): squared distances underflow to 0; rescale the data (multiply it by a power of two) or use --precision f64"),
    ("range_ok_f64_small.csv", b"0,0\n1e-25,0\n2e-25,0\n1e-23,0\n1.1e-23,0\n1.2e-23,0\n", "run", 0, "ok 6x2"),
    ("range_overflow_f64.csv", b"1e300,1\n2e300,2\n3,3\n4,4\n", "run", 1, "{FILE}: coordinates up to 2e+300, too large for f64 distances at d = 2 (limit 4.74038e+153): rescale the data (divide it by a power of two)"),
    ("range_overflow_f32.csv", b"1e20,1\n2e20,2\n3,3\n4,4\n", "f32", 1, "{FILE}: coordinates up to 2e+20, too large for f32 distances at d = 2 (limit 6.52191e+18): rescale the data (divide it by a power of two) or use --precision f64"),
    ("range_inertia_overflow.csv", b"".join(b"%s\n" % v for v in [b"5e153", b"3e153", b"-4e153", b"-6e153"] * 100),
     "run", 1, "{FILE}: squared distances between points overflow (or are not numbers); rescale the data"),
    ("weights_sum_overflow.txt", b"1e307\n" * 6, "weights", 1, "{FILE}: the sample weights sum to 6e+307 and the coordinates reach 11: the centroid update's weighted sums overflow f64; scale the weights down (only their ratios matter)"),
    ("weights_subnormal.txt", b"1e-320\n" * 6, "weights", 1, "{FILE}: sample weight 1 (9.99989e-321) is outside the f64 range of normal numbers 2.22507e-308 .. 1.79769e+308: rescale the weights (only their ratios matter)"),
    # ---- weights files: the data loader's rules (BOM skipped, .npy recognised, bytes escaped)
    ("weights_bom.txt", b"\xef\xbb\xbf1\n1\n1\n2\n2\n2\n", "weights", 0, "ok 6"),
    ("weights_npy.npy", npy("<f8", "(6,)", f8(1, 1, 1, 2, 2, 2)), "weights", 0, "ok 6"),
    ("weights_npy_2d.npy", npy("<f8", "(3, 2)", f8(1, 1, 1, 2, 2, 2)), "weights", 1,
     "{FILE}: sample weights must be a 1-D array, this .npy file holds 3 × 2 values"),
    ("weights_npy_negative.npy", npy("<f8", "(6,)", f8(1, 1, 1, 2, 2, -2)), "weights", 1,
     "{FILE}: the weight -2 (element 5) is negative"),
    ("weights_binary.txt", b"1\n\x01\x02\xff\n", "weights", 1, "{FILE}:2: '\\x01\\x02\\xFF' is not a number"),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    names = [case[0] for case in CASES]
    if len(set(names)) != len(names):
        sys.exit("duplicate file names in CASES")
    # Keep the reproducers the fuzzers found (fuzz-*), written by hand.
    for name in os.listdir(OUT):
        if name not in names and name != "expected.tsv" and not name.startswith("fuzz-"):
            os.remove(os.path.join(OUT, name))
    rows = ["# file\tcommand\texit\tmessage ({FILE}: the file's path; {GOOD}: good_6x2.csv's path)"]
    for name, data, command, code, message in CASES:
        with open(os.path.join(OUT, name), "wb") as out:
            out.write(data)
        for field in (name, command, message):
            if "\t" in field or "\n" in field:
                sys.exit("tab or newline in a manifest field: " + name)
        rows.append("\t".join([name, command, str(code), message]))
    extra = os.path.join(OUT, "fuzz-cases.tsv")
    if os.path.exists(extra):
        with open(extra) as rows_file:
            rows += [line.rstrip("\n") for line in rows_file if line.strip() and not line.startswith("#")]
    with open(os.path.join(OUT, "expected.tsv"), "w") as manifest:
        manifest.write("\n".join(rows) + "\n")
    print("%d cases in %s" % (len(rows) - 1, os.path.relpath(OUT)))


if __name__ == "__main__":
    main()
