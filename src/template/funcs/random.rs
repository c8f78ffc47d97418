//! sprig's random functions (`randAlphaNum`, `randAlpha`, `randNumeric`, `randAscii`,
//! `randInt`, `randBytes`, `shuffle`, `uuidv4`). Each gives another result on every call, so
//! each is marked non-deterministic: a diff can say "regenerated on every render" instead of
//! showing a change. The randomness comes from the operating system, as Go's `crypto/rand`.

use super::super::value::Value;
use super::super::{FuncDef, FuncError, Param};
use base64::Engine;

const I: Param = Param::Int;
const S: Param = Param::String;

/// The random functions.
pub const FUNCS: &[FuncDef] = &[
    FuncDef::new("randAlphaNum", &[I], |_, a| {
        random_string(
            a,
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        )
    })
    .nondeterministic(),
    FuncDef::new("randAlpha", &[I], |_, a| {
        random_string(a, b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    })
    .nondeterministic(),
    FuncDef::new("randNumeric", &[I], |_, a| random_string(a, b"0123456789")).nondeterministic(),
    // goutils.CryptoRandomAscii: the printable characters from space to `~`.
    FuncDef::new("randAscii", &[I], |_, a| {
        let printable: Vec<u8> = (32..127).collect();
        random_string(a, &printable)
    })
    .nondeterministic(),
    FuncDef::new("randInt", &[I, I], |_, a| {
        let (min, max) = (int(a, 0), int(a, 1));
        let n = max.wrapping_sub(min);
        if n <= 0 {
            // math/rand.Intn's panic, which text/template turns into the call's error.
            return Err(FuncError::Call("invalid argument to Intn".into()));
        }
        Ok(Value::Int(below(n as u64)? as i64 + min))
    })
    .nondeterministic(),
    FuncDef::new("randBytes", &[I], |_, a| {
        let mut bytes = vec![0u8; int(a, 0).max(0) as usize];
        fill(&mut bytes)?;
        Ok(Value::str(
            base64::engine::general_purpose::STANDARD.encode(bytes),
        ))
    })
    .nondeterministic(),
    // xstrings.Shuffle: the characters in a random order.
    FuncDef::new("shuffle", &[S], |_, a| {
        let mut chars: Vec<char> = a[0].as_str().unwrap_or_default().chars().collect();
        for i in (1..chars.len()).rev() {
            let j = below(i as u64 + 1)? as usize;
            chars.swap(i, j);
        }
        Ok(Value::str(chars.into_iter().collect::<String>()))
    })
    .nondeterministic(),
    FuncDef::new("uuidv4", &[], |_, _| Ok(Value::str(uuid_v4()?))).nondeterministic(),
];

fn int(a: &[Value], i: usize) -> i64 {
    a[i].as_int().unwrap_or_default()
}

/// Fills `bytes` from the operating system's random source.
pub fn fill(bytes: &mut [u8]) -> Result<(), FuncError> {
    getrandom::fill(bytes).map_err(|e| FuncError::Call(format!("random source: {e}")))
}

/// A uniform random number in `0..n` (`n > 0`), without modulo bias.
pub fn below(n: u64) -> Result<u64, FuncError> {
    let zone = u64::MAX - u64::MAX % n;
    loop {
        let mut b = [0u8; 8];
        fill(&mut b)?;
        let x = u64::from_le_bytes(b);
        if x < zone {
            return Ok(x % n);
        }
    }
}

/// `count` characters drawn from `alphabet`; a negative count gives "" (goutils' error,
/// which sprig drops).
fn random_string(a: &[Value], alphabet: &[u8]) -> Result<Value, FuncError> {
    let count = int(a, 0).max(0) as usize;
    let mut out = String::with_capacity(count);
    for _ in 0..count {
        out.push(alphabet[below(alphabet.len() as u64)? as usize] as char);
    }
    Ok(Value::str(out))
}

/// A random (version 4) UUID as google/uuid prints it.
fn uuid_v4() -> Result<String, FuncError> {
    let mut b = [0u8; 16];
    fill(&mut b)?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    ))
}
