// Package setfile reads and writes image sets stored as matrices of frame
// features: one row per frame, one column per feature (n×D). Two formats
// are read, chosen by the file extension in any case: NumPy .npy and CSV.
//
// # NumPy .npy
//
// The reader is deliberately small and strict; it accepts what numpy.save
// writes for a 2-D float array and rejects everything else with a message
// that says what to change:
//
//   - The file starts with the magic "\x93NUMPY" and format version 1.0
//     (2-byte little-endian header length), 2.0 or 3.0 (4-byte length).
//     Headers longer than 64 KiB are refused.
//   - The header is a Python dictionary literal with exactly the keys
//     'descr', 'fortran_order' and 'shape', each once, in any order, with
//     single- or double-quoted strings, True/False and a tuple of
//     non-negative integers (a trailing comma is allowed; Python 2 "L"
//     suffixes are accepted). It may be followed only by spaces, tabs,
//     NULs and newlines. Expressions, escapes, unknown keys and structured
//     dtypes are errors.
//   - 'descr' is '<f8' (float64) or '<f4' (float32, widened exactly to
//     float64). Big-endian ('>f8'), unstated byte order ('=f8', '|f8') and
//     every other dtype (integers, float16, complex, objects) are errors:
//     convert with x.astype('<f8').
//   - 'fortran_order' must be False: save np.ascontiguousarray(x).
//   - 'shape' must be 2-D (frames, features) with both sizes at least 1;
//     1-D, 0-D and 3-D or higher arrays are errors (reshape to 2-D).
//   - The shape is checked against Limits before anything is allocated for
//     the data. At most 16 MiB is allocated up front; larger arrays grow
//     as their data is read, so a header that lies about the size cannot
//     make the reader allocate much more than the bytes actually present.
//   - The data must be exactly rows×cols×itemsize bytes: a short file and
//     trailing bytes are both errors that state the expected and present
//     byte counts.
//   - Every value must be finite; a NaN or ±Inf is reported with its row
//     (frame) and column (feature), counting from 0 as NumPy does.
//
// WriteNPY writes '<f8', C order, format version 1.0, the header padded
// with spaces and a newline so the data starts at a multiple of 64 bytes,
// which is what numpy.save produces; numpy.load reads it back.
//
// # CSV
//
// One frame per line, values separated by commas, the same number of
// values on every line. Spaces and tabs around values are allowed; lines
// whose first non-blank character is '#' are comments (numpy.savetxt's
// header) and may appear anywhere; blank lines are ignored; CRLF line ends
// and a leading UTF-8 byte-order mark are accepted, lines ended by CR alone
// (classic Mac text) are an error that says so. Values are decimal
// numbers: an optional sign, digits with an optional point, an optional
// exponent (12, -.5, 1.5e-3, 1E+05); Go's digit separators ("1_000") and
// hexadecimal floats ("0x1p-2") are errors. They must be finite ("nan",
// "inf", overflowing values are errors). Errors name
// the line (counting from 1) and the column (counting from 1). An
// unmarked header row such as "f0,f1" is an error: prefix it with '#'.
// numpy.savetxt(path, x, delimiter=',') writes a valid file.
//
// # Limits
//
// Limits bound the number of rows (frames), columns (features) and bytes
// of the matrix in memory (rows×cols×8); DefaultLimits is 256 MiB, 1<<20
// rows and 1<<16 columns. A zero field selects the default, a negative
// field removes that limit. For CSV the text read is bounded as well.
// Limits.Knobs name how the caller's user raises each limit (a flag, a
// configuration key), which the error of a set over it names.
//
// # Errors
//
// Every error is an *Error holding the file name (for ReadFile, Read and
// WriteFile) and a message. It wraps ErrFormat for invalid content,
// ErrTooLarge for content over the limits, or the underlying I/O error
// (for example fs.ErrNotExist), so callers can tell a bad file from a
// failing disk with errors.Is.
//
// WriteFile writes atomically: a temporary file in the destination
// directory is written, synced and renamed over the target.
package setfile
