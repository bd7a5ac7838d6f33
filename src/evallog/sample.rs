//! One inspect-ai sample entry (`samples/<id>_epoch_<n>.json`) as one row of the canonical table,
//! exactly as the Python reader (`polarscore/logs/_inspect.py`) reads it.
//!
//! Each function here mirrors the Python function of the same name; where Python's result
//! would depend on something this module does not reproduce (a float or a JSON object written
//! as text, a non-ASCII verdict, an attachment to resolve...), it gives `None`, and the entry
//! is read by the Python reader instead. So the rows never differ, whichever reader reads them.

use std::collections::HashMap;
use std::fmt;
use std::sync::LazyLock;

use memchr::memmem;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::json::{self, Json, Truthy};

/// One row of the canonical table, without the columns a whole archive shares.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub sample_id: Option<String>,
    pub epoch: i64,
    pub input: Option<String>,
    pub response: Option<String>,
    pub references: Option<Vec<String>>,
    pub choices: Option<Vec<String>>,
    /// One verdict per `framework_*` column, in the columns' order.
    pub verdicts: Vec<Option<f64>>,
}

/// The fields of a sample the reader uses (`Missing` when absent); the rest are skipped.
#[derive(Debug, Default)]
struct Sample {
    id: Json,
    epoch: Json,
    input: Json,
    target: Json,
    choices: Json,
    output: Json,
    scores: Json,
    attachments: Truthy,
}

enum Key {
    Id,
    Epoch,
    Input,
    Target,
    Choices,
    Output,
    Scores,
    Attachments,
    Other,
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E>(self, v: &str) -> Result<Key, E> {
        Ok(match v {
            "id" => Key::Id,
            "epoch" => Key::Epoch,
            "input" => Key::Input,
            "target" => Key::Target,
            "choices" => Key::Choices,
            "output" => Key::Output,
            "scores" => Key::Scores,
            "attachments" => Key::Attachments,
            _ => Key::Other,
        })
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

struct SampleVisitor;

impl<'de> Visitor<'de> for SampleVisitor {
    type Value = Sample;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Sample, A::Error> {
        fn set<E: de::Error>(slot: &mut Json, value: Json) -> Result<(), E> {
            if *slot != Json::Missing {
                return Err(E::custom("a key twice")); // Python keeps the last: leave it to it
            }
            *slot = value;
            Ok(())
        }
        let mut sample = Sample::default();
        let mut attachments = None;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Id => set(&mut sample.id, map.next_value()?)?,
                Key::Epoch => set(&mut sample.epoch, map.next_value()?)?,
                Key::Input => set(&mut sample.input, map.next_value()?)?,
                Key::Target => set(&mut sample.target, map.next_value()?)?,
                Key::Choices => set(&mut sample.choices, map.next_value()?)?,
                Key::Output => set(&mut sample.output, map.next_value()?)?,
                Key::Scores => set(&mut sample.scores, map.next_value()?)?,
                Key::Attachments => {
                    if attachments.replace(map.next_value::<Truthy>()?).is_some() {
                        return Err(de::Error::custom("a key twice"));
                    }
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        sample.attachments = attachments.unwrap_or_default();
        Ok(sample)
    }
}

impl<'de> Deserialize<'de> for Sample {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Sample, D::Error> {
        // An object only: a top-level array is not a sample.
        deserializer.deserialize_map(SampleVisitor)
    }
}

const EVENTS: &[u8] = b",\"events\":[";
const MESSAGES: &[u8] = b",\"messages\":[";
const OUTPUT: &[u8] = b",\"output\":{";
const CHOICES: &[u8] = b",\"choices\":[";
const COMPLETION: &[u8] = b"],\"completion\":\"";
const ATTACHMENT_BYTES: &[u8] = b"\"attachment://";
const ATTACHMENT: &str = "attachment://";

/// A searcher for each needle, built once (building one per search cost more than searching).
static FINDERS: LazyLock<[memmem::Finder<'static>; 8]> = LazyLock::new(|| {
    [
        EVENTS,
        MESSAGES,
        OUTPUT,
        CHOICES,
        COMPLETION,
        ATTACHMENT_BYTES,
        b"NaN",
        b"Infinity",
    ]
    .map(memmem::Finder::new)
});
const FIND_EVENTS: usize = 0;
const FIND_MESSAGES: usize = 1;
const FIND_OUTPUT: usize = 2;
const FIND_CHOICES: usize = 3;
const FIND_COMPLETION: usize = 4;
const FIND_ATTACHMENT: usize = 5;
const FIND_NAN: usize = 6;
const FIND_INFINITY: usize = 7;

/// The first `FINDERS[needle]` in `haystack[from..to]`.
fn find(haystack: &[u8], needle: usize, from: usize, to: usize) -> Option<usize> {
    let part = haystack.get(from..to)?;
    FINDERS[needle].find(part).map(|at| at + from)
}

/// The text `_parse_sample` parses first: the entry cut before `events`, without `messages`,
/// nor `output.choices` when a non-empty `output.completion` follows it; `None` when it parses
/// the whole entry at once.
fn head(data: &[u8]) -> Option<Vec<u8>> {
    let cut = find(data, FIND_EVENTS, 0, data.len()).filter(|&cut| cut > 0)?;
    if find(data, FIND_ATTACHMENT, 0, cut).is_some() {
        return None;
    }
    let mut text = Vec::with_capacity(cut + 1);
    let messages = find(data, FIND_MESSAGES, 0, cut);
    let output = messages.and_then(|start| find(data, FIND_OUTPUT, start, cut));
    match (messages, output) {
        (Some(start), Some(end)) if start > 0 => {
            text.extend_from_slice(&data[..start]);
            let choices = find(data, FIND_CHOICES, end, cut);
            let completion = choices.and_then(|from| find(data, FIND_COMPLETION, from, cut));
            match (choices, completion) {
                (Some(choices), Some(completion))
                    if data.get(completion + COMPLETION.len()) != Some(&b'"') =>
                {
                    text.extend_from_slice(&data[end..choices]);
                    text.extend_from_slice(&data[completion + 1..cut]);
                }
                _ => text.extend_from_slice(&data[end..cut]),
            }
        }
        _ => text.extend_from_slice(&data[..cut]),
    }
    text.push(b'}');
    Some(text)
}

/// Parse a sample (an object), `None` when serde_json cannot read it as Python would.
fn parse(text: &[u8]) -> Option<Sample> {
    // Python decodes the whole text first; serde_json checks only the strings it keeps.
    if std::str::from_utf8(text).is_err() {
        return None;
    }
    let specials = find(text, FIND_NAN, 0, text.len()).is_some()
        || find(text, FIND_INFINITY, 0, text.len()).is_some();
    if specials {
        let rewritten = json::rewrite_specials(text)?;
        json::parse(&rewritten, true)
    } else {
        json::parse(text, false)
    }
}

/// The row of a sample entry's bytes; `None`: the Python reader must read this entry.
///
/// `columns` maps each `framework_*` column's verdict name to its position.
pub fn read_sample(data: &[u8], columns: &HashMap<String, usize>) -> Option<Row> {
    let sample = match head(data) {
        // The head is parsed as Python parses it; when Python would keep it and serde_json
        // cannot read it (a key twice, a lone surrogate), the entry is Python's.
        Some(text) => match parse(&text)? {
            sample if sample.output != Json::Missing => sample,
            _ => parse(data)?,
        },
        None => parse(data)?,
    };
    add_sample(&sample, columns)
}

/// `add_sample`: a parsed sample's row.
fn add_sample(sample: &Sample, columns: &HashMap<String, usize>) -> Option<Row> {
    if sample.attachments.0
        && (sample.input.mentions(ATTACHMENT)
            || sample.target.mentions(ATTACHMENT)
            || sample.output.mentions(ATTACHMENT))
    {
        return None; // attachments to resolve
    }
    let input = match &sample.input {
        Json::Str(s) => Some(s.clone()),
        other => messages_text(other)?,
    };
    let references = match &sample.target {
        Json::Str(s) => Some(vec![s.clone()]),
        other => text_list(other)?,
    };
    let choices = match &sample.choices {
        Json::Null | Json::Missing => None,
        other => text_list(other)?,
    };
    let epoch = match sample.epoch {
        Json::Null | Json::Missing => 1,
        Json::Int(n) => i64::try_from(n).ok()?,
        _ => return None,
    };
    Some(Row {
        sample_id: as_text(&sample.id)?,
        epoch,
        input,
        response: response(&sample.output)?,
        references,
        choices,
        verdicts: verdicts(&sample.scores, columns)?,
    })
}

/// `_verdicts`, each verdict put in its column (a name without a column is dropped; a name
/// given twice keeps its last verdict, as Python's dict).
fn verdicts(scores: &Json, columns: &HashMap<String, usize>) -> Option<Vec<Option<f64>>> {
    let mut out = vec![None; columns.len()];
    let Json::Object(scores) = scores else {
        return Some(out);
    };
    let mut put = |name: &str, value: Option<f64>| {
        if let Some(&column) = columns.get(name) {
            out[column] = value;
        }
    };
    for (name, score) in scores {
        let value = match score {
            Json::Object(_) => score.get("value"),
            other => other,
        };
        match value {
            Json::Object(items) => {
                for (key, item) in items {
                    put(&format!("{name}_{key}"), verdict(item)?);
                }
            }
            Json::Array(_) => {}
            other => put(name, verdict(other)?),
        }
    }
    Some(out)
}

/// `verdict` (polarscore/logs/_table.py): a framework's verdict as a number.
fn verdict(value: &Json) -> Option<Option<f64>> {
    Some(match value {
        Json::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Json::Int(n) => Some(*n as f64),
        Json::Float(f) => f.is_finite().then_some(*f),
        Json::Str(s) => return text_verdict(s),
        _ => None,
    })
}

fn text_verdict(s: &str) -> Option<Option<f64>> {
    match s {
        "C" => return Some(Some(1.0)),
        "P" => return Some(Some(0.5)),
        "I" | "N" => return Some(Some(0.0)),
        _ => {}
    }
    if !s.is_ascii() {
        return None; // Python's strip, lower and float read Unicode: left to Python
    }
    // str.strip()'s whitespace among ASCII: \t \n \x0b \x0c \r \x1c-\x1f and the space.
    let text = s
        .trim_matches(|c: char| matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' '))
        .to_ascii_lowercase();
    Some(match text.as_str() {
        "yes" | "true" => Some(1.0),
        "no" | "false" => Some(0.0),
        _ => return python_float(&text).map(|f| f.filter(|f| f.is_finite())),
    })
}

/// Python's `float()` of an ASCII text: `Some(None)` when it raises `ValueError`, `None` for
/// the underscores between digits that Python allows (left to Python).
fn python_float(text: &str) -> Option<Option<f64>> {
    if text.contains('_') {
        return None;
    }
    let bytes = text.as_bytes();
    let unsigned = bytes
        .strip_prefix(b"+")
        .or_else(|| bytes.strip_prefix(b"-"))
        .unwrap_or(bytes);
    let special = ["inf", "infinity", "nan"]
        .iter()
        .any(|word| unsigned.eq_ignore_ascii_case(word.as_bytes()));
    if !special && !is_decimal(unsigned) {
        return Some(None);
    }
    Some(text.parse::<f64>().ok())
}

/// `digits [. [digits]] | . digits`, then an optional exponent: Python's decimal float.
fn is_decimal(text: &[u8]) -> bool {
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let whole = digits(text);
    let mut rest = &text[whole..];
    let mut fraction = 0;
    if let Some(after) = rest.strip_prefix(b".") {
        fraction = digits(after);
        rest = &after[fraction..];
    }
    if whole + fraction == 0 {
        return false;
    }
    if let Some(after) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let after = after
            .strip_prefix(b"+")
            .or_else(|| after.strip_prefix(b"-"))
            .unwrap_or(after);
        let exponent = digits(after);
        return exponent > 0 && exponent == after.len();
    }
    rest.is_empty()
}

/// `as_text`: a scalar as text. Python writes a float, a list or an object with `json.dumps`:
/// those are left to Python.
fn as_text(value: &Json) -> Option<Option<String>> {
    Some(match value {
        Json::Missing | Json::Null => None,
        Json::Str(s) => Some(s.clone()),
        Json::Bool(b) => Some(if *b { "true" } else { "false" }.to_owned()),
        Json::Int(n) => Some(n.to_string()),
        Json::Float(_) | Json::Array(_) | Json::Object(_) => return None,
    })
}

/// `text_list`: text or a list of text as a list (null stays null).
fn text_list(value: &Json) -> Option<Option<Vec<String>>> {
    Some(match value {
        Json::Missing | Json::Null => None,
        Json::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.extend(as_text(item)?);
            }
            Some(out)
        }
        other => as_text(other)?.map(|text| vec![text]),
    })
}

/// `content_text`: a string, or the text parts of a list of parts joined by a newline.
fn content_text(content: &Json) -> Option<Option<String>> {
    Some(match content {
        Json::Missing | Json::Null => None,
        Json::Str(s) => Some(s.clone()),
        Json::Array(parts) => {
            let mut texts: Vec<&str> = Vec::with_capacity(parts.len());
            for part in parts {
                match part {
                    Json::Str(s) => texts.push(s),
                    Json::Object(_) => {
                        let kind = match part.get("type") {
                            Json::Missing => true,
                            Json::Str(s) => s == "text",
                            _ => false,
                        };
                        if let (true, Json::Str(s)) = (kind, part.get("text")) {
                            texts.push(s);
                        }
                    }
                    _ => {}
                }
            }
            Some(texts.join("\n"))
        }
        other => return as_text(other),
    })
}

/// `messages_text`: a prompt given as text or as chat messages (`role: text` paragraphs).
fn messages_text(messages: &Json) -> Option<Option<String>> {
    Some(match messages {
        Json::Missing | Json::Null => None,
        Json::Str(s) => Some(s.clone()),
        Json::Array(items) => {
            let mut lines = Vec::with_capacity(items.len());
            for message in items {
                lines.push(match message {
                    Json::Object(_) => {
                        let text = content_text(message.get("content"))?.unwrap_or_default();
                        match message.get("role") {
                            Json::Str(role) if !role.is_empty() => format!("{role}: {text}"),
                            Json::Str(_) | Json::Missing | Json::Null => text,
                            // Python formats a role of another type with str(): left to it.
                            _ => return None,
                        }
                    }
                    other => as_text(other)?.unwrap_or_default(),
                });
            }
            Some(lines.join("\n\n"))
        }
        other => return as_text(other),
    })
}

/// `_response`: `output.completion` when not empty, else the first choice's text.
fn response(output: &Json) -> Option<Option<String>> {
    if !matches!(output, Json::Object(_)) {
        return Some(None);
    }
    if let Json::Str(completion) = output.get("completion") {
        if !completion.is_empty() {
            return Some(Some(completion.clone()));
        }
    }
    Some(match output.get("choices") {
        Json::Array(choices) if !choices.is_empty() => match choices[0].get("message") {
            message @ Json::Object(_) => {
                Some(content_text(message.get("content"))?.unwrap_or_default())
            }
            _ => Some(String::new()),
        },
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(names: &[&str]) -> HashMap<String, usize> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), i))
            .collect()
    }

    fn row(text: &str, names: &[&str]) -> Option<Row> {
        read_sample(text.as_bytes(), &columns(names))
    }

    #[test]
    fn a_compact_entry() {
        let text = concat!(
            r#"{"id":"s-2","epoch":2,"input":"Q?","target":["A","a"],"choices":["A","B"],"#,
            r#""messages":[{"role":"user","content":"Q?"}],"output":{"model":"m","choices":"#,
            r#"[{"message":{"content":"ignored"}}],"completion":"A"},"scores":{"m":{"value":"C"},"#,
            r#""g":{"value":NaN},"d":{"value":{"x":"yes","y":[1]}},"l":{"value":[1]}},"#,
            r#""events":[{"event":"x","v":NaN}],"attachments":{}}"#
        );
        let got = row(text, &["m", "g", "d_x", "d_y", "l"]).expect("native");
        assert_eq!(
            got,
            Row {
                sample_id: Some("s-2".into()),
                epoch: 2,
                input: Some("Q?".into()),
                response: Some("A".into()),
                references: Some(vec!["A".into(), "a".into()]),
                choices: Some(vec!["A".into(), "B".into()]),
                verdicts: vec![Some(1.0), None, Some(1.0), None, None],
            }
        );
    }

    #[test]
    fn an_empty_completion_reads_the_first_choice() {
        let text = concat!(
            r#"{"id":1,"input":[{"role":"system","content":"S"},{"role":"user","content":"#,
            r#"[{"type":"text","text":"a"},{"type":"image","image":"i"},{"text":"b"}]}],"#,
            r#""messages":[],"output":{"choices":[{"message":{"content":[{"type":"text","text":"X"},"#,
            r#"{"type":"text","text":"Y"}]}}],"completion":""},"events":[]}"#
        );
        let got = row(text, &[]).expect("native");
        assert_eq!(got.sample_id.as_deref(), Some("1"));
        assert_eq!(got.epoch, 1);
        assert_eq!(got.input.as_deref(), Some("system: S\n\nuser: a\nb"));
        assert_eq!(got.response.as_deref(), Some("X\nY"));
        assert_eq!(got.references, None);
        assert_eq!(got.choices, None);
    }

    #[test]
    fn what_python_writes_differently_is_left_to_it() {
        for text in [
            r#"{"id":1.5,"output":{}}"#,                  // a float as text
            r#"{"id":1,"target":[{"a":1}],"output":{}}"#, // an object as text
            r#"{"id":1,"epoch":true,"output":{}}"#,       // a bool epoch
            r#"{"id":1,"input":[{"role":1,"content":"x"}],"output":{}}"#, // str(role)
            r#"{"id":1,"output":{},"scores":{"m":{"value":"١"}}}"#, // Unicode digits
            r#"{"id":1,"output":{},"scores":{"m":{"value":"1_0"}}}"#, // underscores
            r#"{"id":1,"id":2,"output":{}}"#,             // a key twice
            r#"{"id":"\ud800","output":{}}"#,             // a lone surrogate
            r#"{"id":1,"input":"attachment://k","output":{},"attachments":{"k":"v"}}"#,
            r#"[1, 2]"#,
            r#"{"id": 1, "output": {"#,
        ] {
            assert_eq!(row(text, &["m"]), None, "{text}");
        }
        // An attachment reference without attachments stays as it is.
        let plain = row(r#"{"id":1,"input":"attachment://k","output":{}}"#, &[]);
        assert_eq!(
            plain.expect("native").input.as_deref(),
            Some("attachment://k")
        );
    }

    #[test]
    fn deep_nesting_is_skipped_unread_and_left_to_python_read() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        // Unread (before and after the cut at events): skipped without recursion.
        let unread = format!(r#"{{"id":1,"metadata":{deep},"output":{{}},"events":{deep}}}"#);
        assert_eq!(
            row(&unread, &[]).expect("native").sample_id.as_deref(),
            Some("1")
        );
        // Read: past serde_json's recursion limit, an error (the entry is Python's), not a
        // stack overflow.
        let read = format!(r#"{{"id":1,"target":{deep},"output":{{}}}}"#);
        assert_eq!(row(&read, &[]), None);
    }

    #[test]
    fn text_verdicts_are_pythons_float() {
        let cases: [(&str, Option<f64>); 16] = [
            (" YES ", Some(1.0)),
            ("\x1cfalse\x0b", Some(0.0)),
            ("0.75", Some(0.75)),
            ("+.5", Some(0.5)),
            ("-1.", Some(-1.0)),
            ("1E-2", Some(0.01)),
            ("1e+400", None),
            ("-Infinity", None),
            ("nan", None),
            ("c", None),
            ("maybe", None),
            ("1e", None),
            (".", None),
            ("0x10", None),
            ("1 2", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(text_verdict(text), Some(want), "{text:?}");
        }
    }
}
