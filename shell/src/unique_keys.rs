//! JSON as the tools read it: an object that repeats a key is refused, where `serde_json::Value`
//! would keep the last value. Another reader may keep the first, and then two tools would read
//! one file as two different things.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Parses `bytes` as one JSON value, refusing any object, at any depth, that repeats a key.
///
/// # Errors
/// The parser's error: malformed JSON, trailing characters, or "duplicate key `K`" with where.
pub fn parse(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let UniqueKeys(value) = UniqueKeys::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// A JSON value whose objects have distinct keys.
struct UniqueKeys(Value);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueKeysVisitor).map(UniqueKeys)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(UniqueKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key `{key}`")));
            }
            let UniqueKeys(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text = r#"{"a": [1, -2, 3.5, "x", null, true, {"b": {}}], "c": {"d": []}}"#;
        assert_eq!(
            parse(text.as_bytes()).expect("valid"),
            serde_json::from_str::<Value>(text).expect("valid")
        );
    }

    #[test]
    fn a_repeated_key_at_any_depth_is_refused() {
        for text in [
            r#"{"root": "a", "root": "b"}"#,
            r#"{"a": 1, "b": {"c": 1, "c": 1}}"#,
            r#"[{"k": 1}, {"k": 1, "k": 2}]"#,
        ] {
            let err = parse(text.as_bytes()).expect_err(text);
            assert!(err.to_string().contains("duplicate key"), "{text}: {err}");
        }
        assert!(parse(br#"{"a": 1} x"#).is_err(), "trailing characters");
    }
}
