//! The JSON values a sample's fields hold, as Python's `json` module gives them.
//!
//! [`Json`] keeps what tells Python's values apart where polarscore's reader looks: integers
//! from floats (an integer's text is its digits, a float's is Python's `repr`), and an object's
//! keys in order. Two things Python accepts and serde_json does not are met half way:
//!
//! * the bare `NaN`, `Infinity` and `-Infinity` tokens Python writes for non-finite floats:
//!   [`rewrite_specials`] turns each into a marker string (a NUL character and the token's
//!   first letter) that [`Json`] reads back as the float, when the document holds no `\u0000`
//!   escape of its own (so no real string can look like a marker);
//! * an object with a key twice (Python keeps the last value at the first key's place): an
//!   error, so the entry goes to the Python reader.
//!
//! Anything else serde_json rejects (lone surrogates, bytes that are not UTF-8, a BOM) is an
//! error too, with the same outcome.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;

use memchr::memmem;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A JSON value as Python's `json.loads` gives it (`Missing`: a key that is absent).
#[derive(Debug, Default, Clone, PartialEq)]
pub enum Json {
    #[default]
    Missing,
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// `dict.get(key)` of an object (`Missing` when absent).
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(items) => items
                .iter()
                .find(|(k, _)| k == key)
                .map_or(&Json::Missing, |(_, v)| v),
            _ => &Json::Missing,
        }
    }

    /// Whether any string in the value (a key or a value) contains `needle`.
    pub fn mentions(&self, needle: &str) -> bool {
        match self {
            Json::Str(s) => s.contains(needle),
            Json::Array(items) => items.iter().any(|v| v.mentions(needle)),
            Json::Object(items) => items
                .iter()
                .any(|(k, v)| k.contains(needle) || v.mentions(needle)),
            _ => false,
        }
    }
}

thread_local! {
    /// Whether the document being parsed went through [`rewrite_specials`] (its marker strings
    /// are floats).
    static MARKERS: Cell<bool> = const { Cell::new(false) };
}

/// The start of a marker string, the rest being the token's first character.
const MARK: char = '\0';

/// Parse `text` as `T`, reading marker strings as floats when `markers` (see
/// [`rewrite_specials`]).
pub fn parse<'a, T: Deserialize<'a>>(text: &'a [u8], markers: bool) -> Option<T> {
    MARKERS.with(|m| m.set(markers));
    let parsed = serde_json::from_slice(text).ok();
    MARKERS.with(|m| m.set(false));
    parsed
}

fn marker(s: &str) -> Option<f64> {
    let mut chars = s.chars();
    if chars.next() != Some(MARK) || !MARKERS.with(Cell::get) {
        return None;
    }
    match chars.as_str() {
        "N" => Some(f64::NAN),
        "I" => Some(f64::INFINITY),
        "-" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Int(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Int(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        // serde_json reads an integer beyond 64 bits as a float: to Python it is an int, and
        // the two cannot be told apart here, so both are floats (which the reader leaves to
        // Python wherever an integer would read differently: as text).
        Ok(Json::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json, E> {
        Ok(marker(v).map_or_else(|| Json::Str(v.to_owned()), Json::Float))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Json, E> {
        Ok(marker(&v).map_or(Json::Str(v), Json::Float))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut items: Vec<(String, Json)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value()?;
            items.push((key, value));
        }
        if has_duplicates(&items) {
            return Err(de::Error::custom("an object has a key twice"));
        }
        Ok(Json::Object(items))
    }
}

fn has_duplicates(items: &[(String, Json)]) -> bool {
    if items.len() <= 8 {
        items
            .iter()
            .enumerate()
            .any(|(i, (k, _))| items[..i].iter().any(|(other, _)| other == k))
    } else {
        let mut seen = HashSet::with_capacity(items.len());
        !items.iter().all(|(k, _)| seen.insert(k.as_str()))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

/// Python's truth value of a JSON value, reading no more of it than that takes.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Truthy(pub bool);

struct TruthyVisitor;

impl<'de> Visitor<'de> for TruthyVisitor {
    type Value = Truthy;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Truthy, E> {
        Ok(Truthy(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Truthy, E> {
        Ok(Truthy(v != 0))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Truthy, E> {
        Ok(Truthy(v != 0))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Truthy, E> {
        Ok(Truthy(v != 0.0)) // NaN is true, as in Python
    }
    fn visit_str<E>(self, v: &str) -> Result<Truthy, E> {
        Ok(Truthy(!v.is_empty())) // a marker (a non-finite float) is true too
    }
    fn visit_unit<E>(self) -> Result<Truthy, E> {
        Ok(Truthy(false))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Truthy, A::Error> {
        let mut any = false;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            any = true;
        }
        Ok(Truthy(any))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Truthy, A::Error> {
        let mut any = false;
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
            any = true;
        }
        Ok(Truthy(any))
    }
}

impl<'de> Deserialize<'de> for Truthy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Truthy, D::Error> {
        deserializer.deserialize_any(TruthyVisitor)
    }
}

/// `text` with each bare `NaN`, `Infinity` and `-Infinity` value replaced by a marker string,
/// or `None` when that cannot be done unambiguously: the text holds a `\u0000` escape, or one
/// of those tokens stands where no value can (Python rejects such a document too).
///
/// The scan follows strings (and their escapes) and the nesting of objects and arrays, enough
/// to know where a value may start: after `[`, `:`, a `,` inside an array, or at the start.
pub fn rewrite_specials(text: &[u8]) -> Option<Vec<u8>> {
    if memmem::find(text, b"\\u0000").is_some() {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() + 64);
    let mut nesting: Vec<u8> = Vec::new();
    let mut value_may_start = true;
    let mut copied = 0;
    let mut i = 0;
    while i < text.len() {
        let byte = text[i];
        match byte {
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                value_may_start = false;
            }
            b'{' | b'[' => {
                nesting.push(byte);
                value_may_start = byte == b'[';
            }
            b'}' | b']' => {
                nesting.pop();
                value_may_start = false;
            }
            b':' => value_may_start = true,
            b',' => value_may_start = nesting.last() == Some(&b'['),
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'N' | b'I' | b'-' => {
                let token: &[u8] = match byte {
                    b'N' => b"NaN",
                    b'I' => b"Infinity",
                    _ if text.get(i + 1) == Some(&b'I') => b"-Infinity",
                    _ => {
                        // A negative number.
                        value_may_start = false;
                        i += 1;
                        continue;
                    }
                };
                if !value_may_start || !text[i..].starts_with(token) {
                    return None;
                }
                out.extend_from_slice(&text[copied..i]);
                out.extend_from_slice(b"\"\\u0000");
                out.push(byte);
                out.push(b'"');
                i += token.len();
                copied = i;
                value_may_start = false;
                continue;
            }
            _ => value_may_start = false,
        }
        i += 1;
    }
    out.extend_from_slice(&text[copied.min(text.len())..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<Json> {
        match rewrite_specials(text.as_bytes()) {
            Some(rewritten) => parse(&rewritten, true),
            None => None,
        }
    }

    #[test]
    fn values_keep_what_python_tells_apart() {
        let value: Json = parse(
            br#"{"b": [1, -2, 2.5, 1e2, true, null, "x"], "a": {}}"#,
            false,
        )
        .expect("valid JSON");
        assert_eq!(
            value,
            Json::Object(vec![
                (
                    "b".into(),
                    Json::Array(vec![
                        Json::Int(1),
                        Json::Int(-2),
                        Json::Float(2.5),
                        Json::Float(100.0),
                        Json::Bool(true),
                        Json::Null,
                        Json::Str("x".into()),
                    ])
                ),
                ("a".into(), Json::Object(vec![])),
            ])
        );
        assert_eq!(value.get("a"), &Json::Object(vec![]));
        assert_eq!(value.get("c"), &Json::Missing);
    }

    #[test]
    fn a_key_twice_lone_surrogates_and_bad_json_are_errors() {
        for text in [
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "e": 0}"#,
            r#""\ud800""#,
            r#"[1, 2,]"#,
            "\u{feff}{}",
            r#"{"a": NaN}"#,
        ] {
            assert_eq!(parse::<Json>(text.as_bytes(), false), None, "{text}");
        }
    }

    #[test]
    fn bare_non_finite_tokens_read_as_floats() {
        let value = read(r#"{"v": NaN, "w": [Infinity, -Infinity, -1], "s": "NaN, Infinity"}"#)
            .expect("rewritten");
        assert!(matches!(value.get("v"), Json::Float(f) if f.is_nan()));
        assert_eq!(
            value.get("w"),
            &Json::Array(vec![
                Json::Float(f64::INFINITY),
                Json::Float(f64::NEG_INFINITY),
                Json::Int(-1)
            ])
        );
        assert_eq!(value.get("s"), &Json::Str("NaN, Infinity".into()));
        // Without the rewrite, a string that looks like a marker is a string.
        let plain: Json = parse(br#""\u0000N""#, false).expect("valid JSON");
        assert_eq!(plain, Json::Str("\0N".into()));
    }

    #[test]
    fn tokens_where_no_value_can_stand_are_refused() {
        for text in [
            r#"{NaN: 1}"#,
            r#"{"a": 1, Infinity: 2}"#,
            r#"{"a": NaNa}"#,
            r#"{"a": Inf}"#,
            r#"{"a": "\u0000"}"#,
            r#"[1 NaN]"#,
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    #[test]
    fn truthiness_is_pythons() {
        for (text, truth) in [
            ("null", false),
            ("0", false),
            ("0.0", false),
            ("\"\"", false),
            ("[]", false),
            ("{}", false),
            ("1", true),
            ("\"a\"", true),
            ("[0]", true),
            ("{\"a\": null}", true),
        ] {
            assert_eq!(parse::<Truthy>(text.as_bytes(), false), Some(Truthy(truth)));
        }
    }
}
