//! JSON request bodies, read strictly: a key given twice in one object is refused (serde_json
//! would keep the last one silently, so a proxy or a log reading the first one would see
//! another command than the one played).

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Parses a request body as `T`, refusing a duplicate key in any object, at any depth.
pub fn from_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, serde_json::Error> {
    let mut reader = serde_json::Deserializer::from_slice(body);
    let value = Unique.deserialize(&mut reader)?;
    reader.end()?;
    serde_json::from_value(value)
}

/// Reads any JSON value, objects without duplicate keys.
struct Unique;

impl<'de> DeserializeSeed<'de> for Unique {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
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
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Unique)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "the key {key:?} is given twice in one object"
                )));
            }
            let value = map.next_value_seed(Unique)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Body {
        command: Value,
        #[serde(default)]
        seq: Option<i64>,
    }

    #[test]
    fn ordinary_bodies_read_as_before() {
        let body: Body = from_body(
            br#"{"command": {"type": "play", "cards": [1, 2.5, null, true, "x"]}, "seq": -3}"#,
        )
        .unwrap();
        assert_eq!(body.seq, Some(-3));
        assert_eq!(body.command["cards"][1], 2.5);
        assert!(from_body::<Body>(br#"{"command": 1, "other": 2}"#).is_err());
        assert!(from_body::<Body>(br#"{"command": 1} x"#).is_err());
    }

    #[test]
    fn a_key_given_twice_is_refused_at_any_depth() {
        for body in [
            r#"{"command": 1, "command": 2}"#,
            r#"{"command": {"type": "a", "type": "b"}}"#,
            r#"{"command": [{"x": 1}, {"y": 1, "y": 1}]}"#,
            r#"{"command": {"a": 1, "\u0061": 2}}"#,
        ] {
            let e = from_body::<Body>(body.as_bytes()).unwrap_err().to_string();
            assert!(e.contains("given twice"), "{body}: {e}");
        }
    }
}
