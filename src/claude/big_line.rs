//! Reading one huge stdout line of claude's (a 20 MiB tool result, a 10 MiB `Write`) so that its
//! big text exists once: the line's large string literals are unescaped inside the line's own
//! buffer, which then becomes the largest of them, instead of being copied out of it.
//!
//! How: the line's large literals are found (a scan that allocates nothing) and checked; the rest
//! of the line, with each large literal replaced by a placeholder, is copied into a small line and
//! parsed as generic JSON; the literals are unescaped in place and put back at their placeholders;
//! then the JSON is read into its typed form, which moves the strings rather than copying them.
//! Anything this path does not handle exactly as [`ClaudeMessage::parse`] would (invalid UTF-8, an
//! escape it does not expect, a cut line, duplicate keys, the placeholder text already in the line)
//! hands the untouched buffer back, for the normal path.

use std::collections::HashSet;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::wire::{ClaudeMessage, WireError};

/// The size of string literal (escaped) worth keeping in the line's buffer rather than copying:
/// a tool's output, a file's text.
pub(crate) const BIG_LITERAL_BYTES: usize = 64 * 1024;

/// Room left after a big line's largest string when the rest of its buffer is given back: a code
/// fence around a tool's output, which the translation adds in the string's own buffer.
const FENCE_ROOM_BYTES: usize = 4096;

/// The start of every placeholder's text; what follows is the literal's index. `\u0001` cannot
/// appear raw in JSON, so a line contains it only escaped, and that is checked for anyway.
const PLACEHOLDER_PREFIX: &str = "\u{1}claude-acp:big-literal:";
const PLACEHOLDER_PREFIX_JSON: &str = "\\u0001claude-acp:big-literal:";

/// Reads `line` (one whole line, without its newline) into a message, turning every string
/// literal of at least `min_literal_bytes` (escaped) into a string without copying the largest one.
/// `Err` gives the buffer back, untouched, when the line must take the normal path instead (it has
/// no such literal, or it is a line this path does not read exactly as the normal one does).
pub(crate) fn parse(
    line: Vec<u8>,
    min_literal_bytes: usize,
) -> Result<Result<ClaudeMessage, WireError>, Vec<u8>> {
    parse_value(line, min_literal_bytes).map(|value| value.and_then(ClaudeMessage::from_value))
}

/// [`parse`] into generic JSON (an object), for a reader that looks at the line before its typed
/// read (a stored transcript's line).
pub(crate) fn parse_value(
    mut line: Vec<u8>,
    min_literal_bytes: usize,
) -> Result<Result<Value, WireError>, Vec<u8>> {
    let Some(literals) = checked_literals(&line, min_literal_bytes) else {
        return Err(line);
    };
    let Some(value) = placeholder_json(&line, &literals) else {
        return Err(line);
    };
    // From here on the buffer is changed: nothing may hand it back.
    let lengths: Vec<usize> = literals
        .iter()
        .map(|literal| unescape_in_place(&mut line[literal.clone()]))
        .collect();
    // Of equals, the first: a tool result's block (its text becomes the update's, and its fence
    // is added in the buffer's spare room, in place) comes before the structured copy of it.
    let largest = (0..literals.len())
        .rev()
        .max_by_key(|&i| literals[i].len())
        .expect("at least one literal");
    let decoded = |index: usize| literals[index].start..literals[index].start + lengths[index];
    let mut texts = Vec::with_capacity(literals.len());
    // claude stores a command's output twice in one line: a copy of the largest text is made
    // from the string once the line's buffer has given back the rest, never beside the line.
    let mut copies_of_largest = Vec::new();
    for index in 0..literals.len() {
        if index == largest {
            texts.push(None);
        } else if line[decoded(index)] == line[decoded(largest)] {
            copies_of_largest.push(index);
            texts.push(None);
        } else {
            // Cannot fail: the line was checked to be UTF-8 and escapes decode to whole characters.
            match std::str::from_utf8(&line[decoded(index)]) {
                Ok(text) => texts.push(Some(text.to_owned())),
                Err(_) => return Ok(Err(not_utf8())),
            }
        }
    }
    line.copy_within(decoded(largest), 0);
    line.truncate(lengths[largest]);
    // The pages past the string (the rest of the line was read into them) go back to the
    // system; a little room stays for a fence the translation may add around it, in place.
    crate::platform::memory::give_back_spare(&mut line, FENCE_ROOM_BYTES);
    let text = match String::from_utf8(line) {
        Ok(text) => text,
        Err(_) => return Ok(Err(not_utf8())),
    };
    for index in copies_of_largest {
        texts[index] = Some(text.clone());
    }
    texts[largest] = Some(text);
    let mut value = value;
    put_back(&mut value, &mut texts);
    Ok(Ok(value))
}

fn not_utf8() -> WireError {
    WireError::NotJson(de::Error::custom("a big string of claude's is not UTF-8"))
}

/// The ranges (inside the quotes) of the line's string literals of at least `min_bytes`, each
/// checked to be one that serde_json reads without error and that this module unescapes exactly as
/// serde_json does. `None` if there is none, or one fails, or the line is not UTF-8 or is cut
/// inside a string.
fn checked_literals(line: &[u8], min_bytes: usize) -> Option<Vec<Range<usize>>> {
    std::str::from_utf8(line).ok()?;
    let mut literals = Vec::new();
    let mut at = 0;
    while let Some(open) = memchr::memchr(b'"', &line[at..]) {
        let start = at + open + 1;
        let mut scan = start;
        let end = loop {
            let found = scan + memchr::memchr2(b'"', b'\\', &line[scan..])?;
            if line[found] == b'"' {
                break found;
            }
            // An escape: the byte after the backslash is never the closing quote.
            scan = found + 2;
            if scan > line.len() {
                return None;
            }
        };
        if end - start >= min_bytes {
            if !literal_is_plain(&line[start..end]) {
                return None;
            }
            literals.push(start..end);
        }
        at = end + 1;
    }
    (!literals.is_empty()).then_some(literals)
}

/// Whether a literal's contents are ones serde_json reads and this module decodes the same way:
/// no raw control character, only JSON's escapes, every `\u` surrogate in a pair. (Anything else,
/// a lone surrogate say, goes to the normal path and gets serde_json's own answer.)
fn literal_is_plain(text: &[u8]) -> bool {
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            0..=0x1f => return false,
            b'\\' => match text.get(at + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
                Some(b'u') => match escaped_char(text, at) {
                    Some((_, width)) => at += width,
                    None => return false,
                },
                _ => return false,
            },
            _ => at += 1,
        }
    }
    true
}

/// The character of the `\uXXXX` escape (or surrogate pair of them) at `at`, and its width.
fn escaped_char(text: &[u8], at: usize) -> Option<(char, usize)> {
    let unit = hex4(text.get(at + 2..at + 6)?)?;
    match unit {
        0xD800..=0xDBFF => {
            if text.get(at + 6..at + 8)? != b"\\u" {
                return None;
            }
            let low = hex4(text.get(at + 8..at + 12)?)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return None;
            }
            let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            Some((char::from_u32(code)?, 12))
        }
        0xDC00..=0xDFFF => None,
        _ => Some((char::from_u32(unit)?, 6)),
    }
}

fn hex4(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |code, &digit| {
        Some(code * 16 + (digit as char).to_digit(16)?)
    })
}

/// The line with each literal replaced by its placeholder, parsed. `None` when the result could
/// differ from the normal path's: the JSON does not parse, is not an object, has a duplicate key
/// (the typed read rejects those, generic JSON keeps the last), or a placeholder does not come out
/// exactly once (the line already had the text).
fn placeholder_json(line: &[u8], literals: &[Range<usize>]) -> Option<Value> {
    let big: usize = literals.iter().map(ExactSizeIterator::len).sum();
    let mut small = Vec::with_capacity(line.len() - big + literals.len() * 40);
    let mut from = 0;
    for (index, literal) in literals.iter().enumerate() {
        small.extend_from_slice(&line[from..literal.start]);
        small.extend_from_slice(PLACEHOLDER_PREFIX_JSON.as_bytes());
        small.extend_from_slice(index.to_string().as_bytes());
        from = literal.end;
    }
    small.extend_from_slice(&line[from..]);
    let small = std::str::from_utf8(&small).ok()?;
    let value: Value = serde_json::from_str(small).ok()?;
    let check = NoDuplicateKeys { line, literals };
    check
        .deserialize(&mut serde_json::Deserializer::from_str(small))
        .ok()?;
    if !value.is_object() {
        return None;
    }
    let mut seen = vec![0usize; literals.len()];
    if !count_placeholders(&value, &mut seen) || seen.iter().any(|&n| n != 1) {
        return None;
    }
    Some(value)
}

/// Counts each placeholder's appearances (keys included); `false` on a string that starts like a
/// placeholder but is none of them.
fn count_placeholders(value: &Value, seen: &mut [usize]) -> bool {
    match value {
        Value::String(text) => count_placeholder(text, seen),
        Value::Array(items) => items.iter().all(|item| count_placeholders(item, seen)),
        Value::Object(map) => map
            .iter()
            .all(|(key, item)| count_placeholder(key, seen) && count_placeholders(item, seen)),
        _ => true,
    }
}

fn count_placeholder(text: &str, seen: &mut [usize]) -> bool {
    match placeholder_index(text, seen.len()) {
        Some(Some(index)) => {
            seen[index] += 1;
            true
        }
        Some(None) => false,
        None => true,
    }
}

/// `None`: not placeholder-like; `Some(None)`: starts like one but is not one of the `count`.
fn placeholder_index(text: &str, count: usize) -> Option<Option<usize>> {
    let rest = text.strip_prefix(PLACEHOLDER_PREFIX)?;
    let index = rest.parse::<usize>().ok().filter(|&i| i < count);
    Some(index.filter(|i| i.to_string() == rest))
}

/// Replaces each placeholder with its text, taking it out of `texts`.
fn put_back(value: &mut Value, texts: &mut [Option<String>]) {
    let mut take = |text: &mut String| {
        if let Some(Some(index)) = placeholder_index(text, texts.len()) {
            *text = texts[index].take().unwrap_or_default();
        }
    };
    match value {
        Value::String(text) => take(text),
        Value::Array(items) => items.iter_mut().for_each(|item| put_back(item, texts)),
        Value::Object(map) => {
            if map.keys().any(|key| key.starts_with(PLACEHOLDER_PREFIX)) {
                // Rebuilt in order rather than removed and inserted, so the keys keep their places.
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(mut key, item)| {
                        take(&mut key);
                        (key, item)
                    })
                    .collect();
            }
            map.values_mut().for_each(|item| put_back(item, texts));
        }
        _ => {}
    }
}

/// The character of the escape at `at` in a checked literal, and the escape's width.
fn escape_at(text: &[u8], at: usize) -> (char, usize) {
    let ch = match text[at + 1] {
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => return escaped_char(text, at).expect("a checked literal"),
        other => other as char,
    };
    (ch, 2)
}

/// Decodes a checked literal's escapes into its own start; returns the decoded length (never more
/// than the escaped one).
fn unescape_in_place(text: &mut [u8]) -> usize {
    let mut read = 0;
    let mut write = 0;
    while read < text.len() {
        let run = memchr::memchr(b'\\', &text[read..]).unwrap_or(text.len() - read);
        text.copy_within(read..read + run, write);
        read += run;
        write += run;
        if read == text.len() {
            break;
        }
        let (ch, width) = escape_at(text, read);
        write += ch
            .encode_utf8(&mut text[write..write + ch.len_utf8()])
            .len();
        read += width;
    }
    write
}

/// Reads any JSON, failing on an object with two keys that may be the same once decoded; a big key
/// (a placeholder) counts as its literal's decoded text. Keys are compared by hash: two that only
/// share a hash send the line to the normal path, which is slower, never wrong.
#[derive(Clone, Copy)]
struct NoDuplicateKeys<'a> {
    line: &'a [u8],
    literals: &'a [Range<usize>],
}

impl<'de> DeserializeSeed<'de> for NoDuplicateKeys<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NoDuplicateKeys<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("JSON without duplicate keys")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let hash = match placeholder_index(&key, self.literals.len()) {
                Some(Some(index)) => decoded_hash(&self.line[self.literals[index].clone()]),
                _ => key.bytes().fold(FNV_OFFSET, fnv),
            };
            if !keys.insert(hash) {
                return Err(de::Error::custom("duplicate key"));
            }
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, one byte at a time, so that a text hashes the same however it is cut.
fn fnv(hash: u64, byte: u8) -> u64 {
    (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
}

/// The hash of a checked literal's decoded text, decoded on the fly.
fn decoded_hash(text: &[u8]) -> u64 {
    let mut hash = FNV_OFFSET;
    let mut at = 0;
    while at < text.len() {
        if text[at] != b'\\' {
            hash = fnv(hash, text[at]);
            at += 1;
            continue;
        }
        let (ch, width) = escape_at(text, at);
        hash = ch.encode_utf8(&mut [0; 4]).bytes().fold(hash, fnv);
        at += width;
    }
    hash
}

#[cfg(test)]
mod tests;
