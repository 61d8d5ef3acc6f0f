//! serde helpers that write bytes as lowercase hex strings (readable JSON, exact round trips).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serializer};

/// `[u8; 32]` as one hex string.
pub(crate) mod digest {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8; 32], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&hex::encode(bytes))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<[u8; 32], D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        let mut out = [0u8; 32];
        hex::decode_to_slice(text.as_ref(), &mut out).map_err(D::Error::custom)?;
        Ok(out)
    }
}

/// `Vec<u8>` as one hex string.
pub(crate) mod bytes {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&hex::encode(bytes))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        hex::decode(text.as_ref()).map_err(D::Error::custom)
    }
}

/// `Vec<[u8; 32]>` as a list of hex strings.
pub(crate) mod digests {
    use super::*;
    use serde::ser::SerializeSeq;

    pub(crate) fn serialize<S: Serializer>(list: &[[u8; 32]], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(list.len()))?;
        for item in list {
            seq.serialize_element(&hex::encode(item))?;
        }
        seq.end()
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<[u8; 32]>, D::Error> {
        let texts = <Vec<String>>::deserialize(deserializer)?;
        texts
            .iter()
            .map(|text| {
                let mut out = [0u8; 32];
                hex::decode_to_slice(text, &mut out)
                    .map(|()| out)
                    .map_err(D::Error::custom)
            })
            .collect()
    }
}
