//! serde helpers for byte fields: lowercase hex strings where the format is human-readable
//! (JSON, TOML: readable, exact round trips), raw bytes otherwise (postcard, bincode, CBOR: no
//! doubling of proof sizes).

use std::fmt;

use serde::de::{Error as _, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Accepts bytes as a byte string or as a sequence of `u8` (formats differ in which they
/// produce).
struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bytes")
    }
    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(v.to_vec())
    }
    fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
        Ok(v)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(byte) = seq.next_element::<u8>()? {
            out.push(byte);
        }
        Ok(out)
    }
}

fn serialize_bytes<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        serializer.serialize_str(&hex::encode(bytes))
    } else {
        serializer.serialize_bytes(bytes)
    }
}

fn deserialize_bytes<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    if deserializer.is_human_readable() {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        hex::decode(text.as_ref()).map_err(D::Error::custom)
    } else {
        deserializer.deserialize_bytes(BytesVisitor)
    }
}

fn deserialize_digest<'de, D: Deserializer<'de>>(deserializer: D) -> Result<[u8; 32], D::Error> {
    let bytes = deserialize_bytes(deserializer)?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| D::Error::invalid_length(bytes.len(), &"32 bytes"))
}

/// `[u8; 32]` as one hex string, or 32 raw bytes.
pub(crate) mod digest {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8; 32], serializer: S) -> Result<S::Ok, S::Error> {
        serialize_bytes(bytes, serializer)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<[u8; 32], D::Error> {
        deserialize_digest(deserializer)
    }
}

/// `Vec<u8>` as one hex string, or raw bytes.
pub(crate) mod bytes {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serialize_bytes(bytes, serializer)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        deserialize_bytes(deserializer)
    }
}

/// `Vec<[u8; 32]>` as a list of hex strings, or a list of 32-byte strings.
pub(crate) mod digests {
    use super::*;

    /// One digest in the list, encoded like [`digest`](super::digest).
    struct Digest([u8; 32]);

    impl Serialize for Digest {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serialize_bytes(&self.0, serializer)
        }
    }

    impl<'de> Deserialize<'de> for Digest {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserialize_digest(deserializer).map(Digest)
        }
    }

    pub(crate) fn serialize<S: Serializer>(list: &[[u8; 32]], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(list.iter().map(|d| Digest(*d)))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<[u8; 32]>, D::Error> {
        let list = <Vec<Digest>>::deserialize(deserializer)?;
        Ok(list.into_iter().map(|d| d.0).collect())
    }
}

/// `Option<[u8; 32]>`, present as [`digest`] (absent fields are skipped by the caller).
pub(crate) mod optional_digest {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(
        digest: &Option<[u8; 32]>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match digest {
            Some(d) => super::digest::serialize(d, serializer),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<[u8; 32]>, D::Error> {
        super::digest::deserialize(deserializer).map(Some)
    }
}

/// `Option<Vec<[u8; 32]>>`, present as [`digests`].
pub(crate) mod optional_digests {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(
        list: &Option<Vec<[u8; 32]>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match list {
            Some(l) => super::digests::serialize(l, serializer),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Vec<[u8; 32]>>, D::Error> {
        super::digests::deserialize(deserializer).map(Some)
    }
}
