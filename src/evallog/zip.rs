//! One zip entry's bytes: its local header, its data decompressed (stored, deflate or zstd) and
//! checked against the CRC-32 and size the central directory records.
//!
//! The central directory is read on the Python side (`zipfile`), which passes each entry's
//! offset, sizes, CRC-32 and method. Anything that is not a well-formed entry gives `None`, and
//! the Python reader then reads the entry itself and raises its own error (so the messages are
//! the same whichever reader meets the entry first).

use std::cell::RefCell;

/// zip's compression methods polarscore reads.
pub const STORED: u16 = 0;
pub const DEFLATED: u16 = 8;
pub const ZSTANDARD: u16 = 93;

const LOCAL_HEADER: usize = 30;
const LOCAL_SIGNATURE: &[u8; 4] = b"PK\x03\x04";
/// Entries declaring more bytes than this are left to the Python reader: the native one
/// allocates an entry's declared size up front, and a corrupt directory could declare anything.
const MAX_ENTRY: u64 = 256 << 20;

/// What the central directory records of one entry.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub header_offset: u64,
    pub compress_size: u64,
    pub file_size: u64,
    pub crc: u32,
    pub method: u16,
}

const END_SIGNATURE: &[u8; 4] = b"PK\x05\x06";
const END_RECORD: usize = 22;
const ZIP64_LOCATOR: &[u8; 4] = b"PK\x06\x07";
const ZIP64_END: &[u8; 4] = b"PK\x06\x06";
const ZIP64_END_RECORD: usize = 56;
const DIRECTORY_SIGNATURE: &[u8; 4] = b"PK\x01\x02";
const DIRECTORY_RECORD: usize = 46;
/// Bit 11 of an entry's flags: its name is UTF-8 (else code page 437).
const UTF8_NAME: u16 = 0x800;

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from(u32_at(bytes, at)) | u64::from(u32_at(bytes, at + 4)) << 32
}

/// The central directory's entries (name and record, in the directory's order), as Python's
/// `zipfile` reads them, or `None` for any archive it does not read the plain way: a comment
/// after the directory, data before the first entry, extra fields (so no entry of zip64
/// sizes), names that are not ASCII or flagged UTF-8, or anything `zipfile` would reject (which
/// it then does). The zip64 end record of an archive of more than 65,535 entries is read.
///
/// `Err` names two entries whose data overlap (see [`overlap`]).
pub fn read_directory(archive: &[u8]) -> Result<Option<Vec<(String, Entry)>>, String> {
    let Some(entries) = plain_directory(archive) else {
        return Ok(None);
    };
    match overlap(&entries) {
        Some(problem) => Err(problem),
        None => Ok(Some(entries)),
    }
}

/// Which entries' data overlap each other, if any: the check Info-ZIP's `unzip` makes against
/// David Fifield's overlapped-entry bombs (many directory records sharing one compressed
/// kernel, or each entry's local header quoted inside the previous entry's data).
///
/// An entry spans at least its local header, its name (as long as the directory's copy of it)
/// and its compressed data; the local extra field is not counted, so that no local header is
/// read (reading 100,000 of them would bring most of a mapped archive into memory), which
/// makes each span a lower bound and any overlap found a real one.
pub fn overlap(entries: &[(String, Entry)]) -> Option<String> {
    let mut spans: Vec<(u64, u64, usize)> = Vec::with_capacity(entries.len());
    for (index, (name, entry)) in entries.iter().enumerate() {
        let end = entry
            .header_offset
            .saturating_add((LOCAL_HEADER + name.len()) as u64)
            .saturating_add(entry.compress_size);
        spans.push((entry.header_offset, end, index));
    }
    // Written in order of offset, as every zip writer does: sorting is then one pass.
    if !spans.is_sorted() {
        spans.sort_unstable();
    }
    spans.windows(2).find_map(|pair| {
        let ((_, end, first), (start, _, second)) = (pair[0], pair[1]);
        (start < end).then(|| {
            format!(
                "the data of its entries '{}' and '{}' overlap",
                entries[first].0, entries[second].0
            )
        })
    })
}

fn plain_directory(archive: &[u8]) -> Option<Vec<(String, Entry)>> {
    let end_at = archive.len().checked_sub(END_RECORD)?;
    let end = &archive[end_at..];
    if &end[..4] != END_SIGNATURE || u16_at(end, 20) != 0 {
        return None;
    }
    let mut size = u64::from(u32_at(end, 12));
    let mut offset = u64::from(u32_at(end, 16));
    // Where the directory must end: the end record, or the zip64 end record before it (more
    // than 65,535 entries), which zipfile looks for just before its locator.
    let mut directory_end = end_at;
    if end_at >= 20 && &archive[end_at - 20..end_at - 16] == ZIP64_LOCATOR {
        let locator = &archive[end_at - 20..end_at];
        let record_at = end_at.checked_sub(20 + ZIP64_END_RECORD)?;
        let record = &archive[record_at..record_at + ZIP64_END_RECORD];
        // One disk only (zipfile raises otherwise), and the record where zipfile reads it.
        if u32_at(locator, 4) != 0 || u32_at(locator, 16) > 1 || &record[..4] != ZIP64_END {
            return None;
        }
        size = u64_at(record, 40);
        offset = u64_at(record, 48);
        directory_end = record_at;
    }
    // zipfile shifts every offset by the bytes found before the directory's recorded place.
    if offset.checked_add(size)? != directory_end as u64 {
        return None;
    }
    let offset = usize::try_from(offset).ok()?;
    let directory = &archive[offset..directory_end];
    let mut entries = Vec::new();
    let mut at = 0;
    while at < directory.len() {
        let record = directory.get(at..at + DIRECTORY_RECORD)?;
        if &record[..4] != DIRECTORY_SIGNATURE {
            return None;
        }
        // zipfile raises NotImplementedError past version 6.3: let it.
        if record[6] > 63 {
            return None;
        }
        let flags = u16_at(record, 8);
        let name_length = u16_at(record, 28) as usize;
        let extra_length = u16_at(record, 30) as usize;
        let comment_length = u16_at(record, 32) as usize;
        let entry = Entry {
            method: u16_at(record, 10),
            crc: u32_at(record, 16),
            compress_size: u32_at(record, 20).into(),
            file_size: u32_at(record, 24).into(),
            header_offset: u32_at(record, 42).into(),
        };
        let zip64 = u64::from(u32::MAX);
        if extra_length != 0
            || [entry.compress_size, entry.file_size, entry.header_offset].contains(&zip64)
        {
            return None;
        }
        let name_at = at + DIRECTORY_RECORD;
        let name = directory.get(name_at..name_at + name_length)?;
        let name = std::str::from_utf8(name).ok()?;
        // zipfile cuts a name at a NUL, and on Windows turns its backslashes into slashes.
        if (flags & UTF8_NAME == 0 && !name.is_ascii()) || name.contains(['\0', '\\']) {
            return None;
        }
        entries.push((name.to_owned(), entry));
        at = name_at + name_length + comment_length;
    }
    (at == directory.len()).then_some(entries)
}

/// The bytes of `entry` in `archive`, or `None` when they cannot be read exactly as recorded.
///
/// A stored entry is borrowed from the archive; a compressed one is decompressed into `out`.
pub fn read_entry<'a>(archive: &'a [u8], entry: &Entry, out: &'a mut Vec<u8>) -> Option<&'a [u8]> {
    if entry.file_size > MAX_ENTRY {
        return None;
    }
    let raw = raw_data(archive, entry)?;
    let size = usize::try_from(entry.file_size).ok()?;
    let data: &[u8] = match entry.method {
        STORED => raw,
        DEFLATED => {
            inflate(raw, size, out)?;
            out
        }
        ZSTANDARD => {
            unzstd(raw, size, out)?;
            out
        }
        _ => return None,
    };
    (data.len() == size && crc32fast::hash(data) == entry.crc).then_some(data)
}

/// The entry's compressed bytes, after its local header (whose name and extra field it skips).
fn raw_data<'a>(archive: &'a [u8], entry: &Entry) -> Option<&'a [u8]> {
    let start = usize::try_from(entry.header_offset).ok()?;
    let header = archive.get(start..start.checked_add(LOCAL_HEADER)?)?;
    if &header[..4] != LOCAL_SIGNATURE {
        return None;
    }
    let name = u16::from_le_bytes([header[26], header[27]]) as usize;
    let extra = u16::from_le_bytes([header[28], header[29]]) as usize;
    let begin = start + LOCAL_HEADER + name + extra;
    let end = begin.checked_add(usize::try_from(entry.compress_size).ok()?)?;
    archive.get(begin..end)
}

/// Raw deflate (no zlib header), to its end; `None` unless it ends within `size` bytes.
fn inflate(raw: &[u8], size: usize, out: &mut Vec<u8>) -> Option<()> {
    out.clear();
    // One more byte than declared: an entry that inflates to more is told apart from one that
    // fills its size exactly.
    out.reserve_exact(size + 1);
    let mut inflater = flate2::Decompress::new(false);
    let status = inflater
        .decompress_vec(raw, out, flate2::FlushDecompress::Finish)
        .ok()?;
    (status == flate2::Status::StreamEnd).then_some(())
}

thread_local! {
    /// One zstd decompression context per thread, reused across entries.
    static ZSTD: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// All the zstd frames of `raw` (inspect-ai writes a big entry as several), at most `size`
/// bytes.
fn unzstd(raw: &[u8], size: usize, out: &mut Vec<u8>) -> Option<()> {
    out.clear();
    out.reserve_exact(size);
    ZSTD.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(zstd::bulk::Decompressor::new().ok()?);
        }
        let decompressor = slot.as_mut()?;
        decompressor.decompress_to_buffer(raw, out).ok().map(|_| ())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A one-entry archive's bytes (local header, name, data) and its directory record.
    fn archive(data: &[u8], method: u16, packed: &[u8]) -> (Vec<u8>, Entry) {
        let mut bytes = vec![0u8; 7]; // the entry need not start the file
        let offset = bytes.len() as u64;
        bytes.extend_from_slice(LOCAL_SIGNATURE);
        bytes.extend_from_slice(&[20, 0, 0, 0]);
        bytes.extend_from_slice(&method.to_le_bytes());
        bytes.extend_from_slice(&[0; 16]);
        bytes.extend_from_slice(&5u16.to_le_bytes()); // name length
        bytes.extend_from_slice(&3u16.to_le_bytes()); // extra length
        bytes.extend_from_slice(b"a.txt\x00\x00\x00");
        bytes.extend_from_slice(packed);
        let entry = Entry {
            header_offset: offset,
            compress_size: packed.len() as u64,
            file_size: data.len() as u64,
            crc: crc32fast::hash(data),
            method,
        };
        (bytes, entry)
    }

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut encoder =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    fn zstd_frames(parts: &[&[u8]]) -> Vec<u8> {
        parts
            .iter()
            .flat_map(|p| zstd::bulk::compress(p, 3).unwrap())
            .collect()
    }

    #[test]
    fn overlapping_entries_are_found() {
        let data = b"{\"id\": 1}".repeat(10);
        let (mut bytes, first) = archive(&data, STORED, &data);
        // A second entry written right after the first: no overlap.
        let second = Entry {
            header_offset: bytes.len() as u64,
            ..first
        };
        let copy = bytes[first.header_offset as usize..].to_vec();
        bytes.extend_from_slice(&copy);
        let named = |entries: &[Entry]| -> Vec<(String, Entry)> {
            entries
                .iter()
                .enumerate()
                .map(|(i, e)| (format!("a{i}.txt"), *e))
                .collect()
        };
        assert_eq!(overlap(&named(&[first, second])), None);
        assert_eq!(overlap(&named(&[second, first])), None);
        // Two records sharing one local header and kernel (Fifield's bomb).
        let found = overlap(&named(&[first, second, first]));
        assert_eq!(
            found.as_deref(),
            Some("the data of its entries 'a0.txt' and 'a2.txt' overlap")
        );
        // An entry whose data runs into the next one's header.
        let long = Entry {
            compress_size: first.compress_size + 4,
            ..first
        };
        assert!(overlap(&named(&[long, second])).is_some());
    }

    #[test]
    fn every_method_reads_back() {
        let data = b"{\"id\": 1, \"input\": \"what is 2 + 2?\"}".repeat(20);
        let packed = [
            (STORED, data.clone()),
            (DEFLATED, deflate(&data)),
            (ZSTANDARD, zstd_frames(&[&data])),
            (ZSTANDARD, zstd_frames(&[&data[..100], &data[100..], b""])),
        ];
        for (method, packed) in packed {
            let (bytes, entry) = archive(&data, method, &packed);
            let mut out = Vec::new();
            assert_eq!(read_entry(&bytes, &entry, &mut out), Some(&data[..]));
        }
    }

    #[test]
    fn anything_not_as_recorded_is_none() {
        let data = b"0123456789".repeat(50);
        let mut out = Vec::new();
        for (method, packed) in [
            (DEFLATED, deflate(&data)),
            (ZSTANDARD, zstd_frames(&[&data])),
        ] {
            let (bytes, entry) = archive(&data, method, &packed);
            let bad_crc = Entry {
                crc: entry.crc ^ 1,
                ..entry
            };
            let short = Entry {
                file_size: entry.file_size - 1,
                ..entry
            };
            let long = Entry {
                file_size: entry.file_size + 1,
                ..entry
            };
            let cut = Entry {
                compress_size: entry.compress_size - 3,
                ..entry
            };
            let moved = Entry {
                header_offset: entry.header_offset + 1,
                ..entry
            };
            let past_end = Entry {
                compress_size: bytes.len() as u64,
                ..entry
            };
            let unknown = Entry {
                method: 12,
                ..entry
            };
            for bad in [bad_crc, short, long, cut, moved, past_end, unknown] {
                assert_eq!(read_entry(&bytes, &bad, &mut out), None, "{bad:?}");
            }
            let mut garbled = bytes.clone();
            let at = garbled.len() - packed.len() / 2;
            garbled[at..at + 8].fill(0xff);
            assert_eq!(read_entry(&garbled, &entry, &mut out), None);
            assert_eq!(
                read_entry(&bytes[..bytes.len() - 1], &entry, &mut out),
                None
            );
        }
    }
}
