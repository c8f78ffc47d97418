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

/// Go's `base64.StdEncoding.DecodeString`: quanta of four decoded in order, line breaks
/// skipped where they stand, so the error is Go's `CorruptInputError` offset in the text as
/// given: the first bad character, the start of an incomplete quantum, bad padding or
/// anything after it.
pub(crate) fn go_base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let src = gostr::to_bytes(text);
    let corrupt = |at: usize| format!("illegal base64 data at input byte {at}");
    let value = |c: u8| -> Option<u8> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        })
    };
    let skip_breaks = |mut i: usize| {
        while i < src.len() && matches!(src[i], b'\n' | b'\r') {
            i += 1;
        }
        i
    };
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    while si < src.len() {
        let mut quantum = [0u8; 4];
        let mut len = 4;
        let mut trailing = None;
        let mut j = 0;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(corrupt(si - j));
            }
            let c = src[si];
            si += 1;
            if let Some(v) = value(c) {
                quantum[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' || j < 2 {
                return Err(corrupt(si - 1));
            }
            if j == 2 {
                // "==" is wanted; the first is read.
                si = skip_breaks(si);
                if si == src.len() {
                    return Err(corrupt(src.len()));
                }
                if src[si] != b'=' {
                    return Err(corrupt(si - 1));
                }
                si += 1;
            }
            si = skip_breaks(si);
            if si < src.len() {
                trailing = Some(si);
            }
            len = j;
            break;
        }
        let bits = quantum
            .iter()
            .fold(0u32, |acc, &v| (acc << 6) | u32::from(v));
        out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8, bits as u8][..len - 1]);
        if let Some(at) = trailing {
            return Err(corrupt(at));
        }
    }
    Ok(out)
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

/// `base32.StdEncoding.DecodeString`: line breaks dropped, then quanta of eight decoded in
/// order, so the error is Go's `CorruptInputError` offset of the first bad character (or of
/// the missing padding at the end).
fn base32_decode(text: &str) -> Result<Vec<u8>, usize> {
    let src: Vec<u8> = gostr::to_bytes(text)
        .iter()
        .copied()
        .filter(|&b| b != b'\r' && b != b'\n')
        .collect();
    let olen = src.len();
    let mut rest = &src[..];
    let mut out = Vec::new();
    let mut end = false;
    while !rest.is_empty() && !end {
        let mut quantum = [0u8; 8];
        let mut len = 8;
        let mut j = 0;
        while j < 8 {
            let Some((&c, tail)) = rest.split_first() else {
                // The end, without the padding the standard encoding wants.
                return Err(olen - j);
            };
            rest = tail;
            if c == b'=' && j >= 2 && rest.len() < 8 {
                if rest.len() + j < 7 {
                    return Err(olen);
                }
                for k in 0..7 - j {
                    if rest.len() > k && rest[k] != b'=' {
                        return Err(olen - rest.len() + k - 1);
                    }
                }
                (len, end) = (j, true);
                // One, three or six characters hold no whole byte.
                if matches!(len, 1 | 3 | 6) {
                    return Err(olen - rest.len() - 1);
                }
                break;
            }
            quantum[j] = match BASE32.iter().position(|&x| x == c) {
                Some(v) => v as u8,
                None => return Err(olen - rest.len() - 1),
            };
            j += 1;
        }
        let bits = quantum
            .iter()
            .fold(0u64, |acc, &v| (acc << 5) | u64::from(v));
        let bytes_out = match len {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            _ => 1,
        };
        out.extend((0..bytes_out).map(|i| (bits >> (32 - 8 * i)) as u8));
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
