package features

import "iter"

// jpegSegments walks the marker segments of the JPEG data after its SOI
// (the first two bytes), yielding each marker with what follows it:
//   - a segment with a length (APPn, DQT, SOFn, SOS, …): its payload, the
//     bytes after the length;
//   - a marker without a length (TEM 0x01, RSTn 0xD0–0xD7, SOI 0xD8): nil;
//   - EOI 0xD9: nil, and the walk ends;
//   - bytes where a marker is due that are none (a scan's entropy-coded
//     data after its SOS segment, or stray bytes), from a byte other than
//     0xFF or a stuffed 0xFF 0x00 to the next marker: marker 0, which is no
//     marker's code, and those bytes. A 0xFF followed by 0x00, by a fill
//     0xFF or by RSTn belongs to the data.
//
// Fill bytes 0xFF before a marker are skipped. The walk ends, with what it
// has yielded, at a segment whose length is less than its own two bytes or
// runs past the data, and where fewer than four bytes are left (no room
// for a marker and a length).
func jpegSegments(data []byte) iter.Seq2[byte, []byte] {
	return func(yield func(byte, []byte) bool) {
		for i := 2; i+4 <= len(data); {
			m := data[i+1]
			switch {
			case data[i] != 0xFF || m == 0x00:
				j := i + 1
				for j+1 < len(data) && !(data[j] == 0xFF && data[j+1] != 0 && data[j+1] != 0xFF && (data[j+1] < 0xD0 || data[j+1] > 0xD7)) {
					j++
				}
				if j+1 >= len(data) {
					yield(0, data[i:])
					return
				}
				if !yield(0, data[i:j]) {
					return
				}
				i = j
				continue
			case m == 0xFF: // fill byte
				i++
				continue
			case m == 0xD9: // end of image
				yield(m, nil)
				return
			case m == 0x01 || (m >= 0xD0 && m <= 0xD8):
				if !yield(m, nil) {
					return
				}
				i += 2
				continue
			}
			n := int(data[i+2])<<8 | int(data[i+3])
			if n < 2 || i+2+n > len(data) {
				return
			}
			if !yield(m, data[i+4:i+2+n]) {
				return
			}
			i += 2 + n
		}
	}
}

// jpegSOF reports whether marker m starts a frame header: SOF0–SOF15 but
// DHT (0xC4), JPG (0xC8) and DAC (0xCC).
func jpegSOF(m byte) bool {
	return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC
}
