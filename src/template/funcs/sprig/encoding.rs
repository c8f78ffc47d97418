//! sprig's encodings (`b64enc`, `b64dec`, `b32enc`, `b32dec`, from its `strings.go`) and
//! checksums (`sha1sum`, `sha256sum`, `sha512sum`, `adler32sum`, from its `crypto.go`; the rest
//! of `crypto.go` is `funcs/crypto.rs`).

use super::{bytes, s, S};
use crate::template::value::Value;
use crate::template::{gostr, FuncDef};

/// The encoding and checksum functions.
pub(super) const FUNCS: &[FuncDef] = &[
    FuncDef::new("b64enc", &[S], |_, a| {
        use base64::Engine;
        Ok(Value::str(
            base64::engine::general_purpose::STANDARD.encode(bytes(a, 0)),
        ))
    }),
    FuncDef::new("b64dec", &[S], |_, a| {
        Ok(Value::str(match go_base64_decode(s(a, 0)) {
            Ok(b) => gostr::from_bytes(&b),
            Err(e) => e,
        }))
    }),
    FuncDef::new("b32enc", &[S], |_, a| {
        Ok(Value::str(base32_encode(&bytes(a, 0))))
    }),
    FuncDef::new("b32dec", &[S], |_, a| {
        Ok(Value::str(match base32_decode(s(a, 0)) {
            Ok(b) => gostr::from_bytes(&b),
            Err(at) => format!("illegal base32 data at input byte {at}"),
        }))
    }),
    FuncDef::new("sha1sum", &[S], |_, a| {
        use sha1::Digest;
        Ok(Value::str(hex(&sha1::Sha1::digest(bytes(a, 0)))))
    }),
    FuncDef::new("sha256sum", &[S], |_, a| {
        use sha2::Digest;
        Ok(Value::str(hex(&sha2::Sha256::digest(bytes(a, 0)))))
    }),
    FuncDef::new("sha512sum", &[S], |_, a| {
        use sha2::Digest;
        Ok(Value::str(hex(&sha2::Sha512::digest(bytes(a, 0)))))
    }),
    FuncDef::new("adler32sum", &[S], |_, a| {
        Ok(Value::str(adler32(&bytes(a, 0)).to_string()))
    }),
];

/// Go's `base64.StdEncoding.DecodeString`, with its error wording: the offset of the first
/// bad byte (or of the incomplete group).
pub(crate) fn go_base64_decode(text: &str) -> Result<Vec<u8>, String> {
    use base64::Engine;
    match base64::engine::general_purpose::STANDARD.decode(text) {
        Ok(b) => Ok(b),
        Err(base64::DecodeError::InvalidByte(at, _)) => {
            Err(format!("illegal base64 data at input byte {at}"))
        }
        Err(_) => Err(format!(
            "illegal base64 data at input byte {}",
            text.len() / 4 * 4
        )),
    }
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// base32.StdEncoding.EncodeToString.
fn base32_encode(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let bits = u64::from_be_bytes([0, 0, 0, buf[0], buf[1], buf[2], buf[3], buf[4]]);
        let chars = match chunk.len() {
            1 => 2,
            2 => 4,
            3 => 5,
            4 => 7,
            _ => 8,
        };
        for i in 0..8 {
            if i < chars {
                out.push(BASE32[((bits >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// base32.StdEncoding.DecodeString; the error is the offset of the first bad byte.
fn base32_decode(text: &str) -> Result<Vec<u8>, usize> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(8) {
        return Err(bytes.len() / 8 * 8);
    }
    let mut out = Vec::new();
    for (c, chunk) in bytes.chunks(8).enumerate() {
        let mut bits = 0u64;
        let mut n = 0;
        for (i, &b) in chunk.iter().enumerate() {
            if b == b'=' {
                break;
            }
            let v = BASE32.iter().position(|&x| x == b).ok_or(c * 8 + i)? as u64;
            bits = (bits << 5) | v;
            n += 1;
        }
        let bytes_out = match n {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            2 => 1,
            0 => 0,
            _ => return Err(c * 8 + n),
        };
        bits <<= 5 * (8 - n);
        for i in 0..bytes_out {
            out.push((bits >> (32 - 8 * i)) as u8);
        }
    }
    Ok(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + byte as u32) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}
