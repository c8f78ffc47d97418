//! sprig's crypto functions: `bcrypt`, `htpasswd`, `derivePassword` (Master Password: scrypt
//! and HMAC-SHA256, deterministic), `encryptAES`/`decryptAES` (AES-256-CBC as sprig pads it),
//! `genPrivateKey`, and the certificate functions (`genCA`, `genSelfSignedCert`,
//! `genSignedCert`, their `WithKey` forms, `buildCustomCert`), which write X.509 certificates
//! as Go's `crypto/x509` lays them out (Go 1.23: extensions in its order, a SHA-1 subject key
//! id on a CA). Everything but `derivePassword` and `decryptAES` is random, so marked
//! non-deterministic.

use super::super::value::{Field, GoStruct, Value};
use super::super::{FuncDef, FuncError, Param};
use super::random;
use super::sprig::encoding::go_base64_decode;
use base64::Engine;
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::pkcs8::{DecodePrivateKey, EncodePublicKey};
use rsa::signature::{SignatureEncoding, Signer};
use sha2::Digest;

const A: Param = Param::Any;
const I: Param = Param::Int;
const S: Param = Param::String;

/// The crypto functions.
pub const FUNCS: &[FuncDef] = &[
    FuncDef::new("bcrypt", &[S], |_, a| Ok(Value::str(bcrypt(s(a, 0))))).nondeterministic(),
    FuncDef::new("htpasswd", &[S, S], |_, a| {
        let user = s(a, 0);
        if user.contains(':') {
            return Ok(Value::str(format!("invalid username: {user}")));
        }
        Ok(Value::str(format!("{user}:{}", bcrypt(s(a, 1)))))
    })
    .nondeterministic(),
    FuncDef::new("derivePassword", &[I, S, S, S, S], |_, a| {
        Ok(Value::str(derive_password(
            a[0].as_int().unwrap_or_default() as u32,
            s(a, 1),
            s(a, 2),
            s(a, 3),
            s(a, 4),
        )))
    }),
    FuncDef::new("encryptAES", &[S, S], |_, a| {
        encrypt_aes(s(a, 0), s(a, 1)).map(Value::str)
    })
    .nondeterministic(),
    FuncDef::new("decryptAES", &[S, S], |_, a| {
        decrypt_aes(s(a, 0), s(a, 1)).map(Value::str)
    }),
    FuncDef::new("genPrivateKey", &[S], |_, a| {
        Ok(Value::str(
            match s(a, 0) {
                "rsa" => rsa_key(4096).and_then(|k| key_pem(&Key::Rsa(Box::new(k)))),
                "ecdsa" => ec_key().and_then(|k| key_pem(&Key::Ec(k))),
                "ed25519" => {
                    let mut seed = [0u8; 32];
                    random::fill(&mut seed)
                        .map(|()| pem("PRIVATE KEY", &ed25519_pkcs8(&seed)))
                        .map_err(|_| "no random source".to_string())
                }
                // DSA parameter generation is not implemented; Go deprecates DSA.
                "dsa" => Err("DSA keys are not supported by kdelta".to_string()),
                other => return Ok(Value::str(format!("Unknown type {other}"))),
            }
            .unwrap_or_else(|e| format!("failed to generate private key: {e}")),
        ))
    })
    .nondeterministic(),
    FuncDef::new("buildCustomCert", &[S, S], |_, a| {
        let cert = go_base64_decode(s(a, 0)).map_err(FuncError::Call)?;
        let key = go_base64_decode(s(a, 1)).map_err(FuncError::Call)?;
        let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
        let (cert, key) = (text(cert), text(key));
        if pem_decode(&cert).is_none() {
            return Err(FuncError::Call(
                "unable to decode base64 certificate".into(),
            ));
        }
        if pem_decode(&key).is_none() {
            return Err(FuncError::Call(
                "unable to decode base64 private key".into(),
            ));
        }
        Ok(certificate(cert, key))
    }),
    FuncDef::new("genCA", &[S, I], |_, a| {
        let key = Key::Rsa(Box::new(rsa_key(2048).map_err(FuncError::Call)?));
        gen_ca(s(a, 0), int(a, 1), key)
    })
    .nondeterministic(),
    FuncDef::new("genCAWithKey", &[S, I, S], |_, a| {
        gen_ca(s(a, 0), int(a, 1), parse_key(s(a, 2))?)
    })
    .nondeterministic(),
    FuncDef::new("genSelfSignedCert", &[S, A, A, I], |_, a| {
        let key = Key::Rsa(Box::new(rsa_key(2048).map_err(FuncError::Call)?));
        gen_self_signed(a, key)
    })
    .nondeterministic(),
    FuncDef::new("genSelfSignedCertWithKey", &[S, A, A, I, S], |_, a| {
        gen_self_signed(a, parse_key(s(a, 4))?)
    })
    .nondeterministic(),
    FuncDef::new("genSignedCert", &[S, A, A, I, A], |_, a| {
        let key = Key::Rsa(Box::new(rsa_key(2048).map_err(FuncError::Call)?));
        gen_signed(a, key)
    })
    .nondeterministic(),
    FuncDef::new("genSignedCertWithKey", &[S, A, A, I, A, S], |_, a| {
        gen_signed(a, parse_key(s(a, 5))?)
    })
    .nondeterministic(),
];

fn s(a: &[Value], i: usize) -> &str {
    a[i].as_str().unwrap_or_default()
}

fn int(a: &[Value], i: usize) -> i64 {
    a[i].as_int().unwrap_or_default()
}

/// golang.org/x/crypto/bcrypt at the default cost (10), `$2a$`.
fn bcrypt(input: &str) -> String {
    if input.len() > 72 {
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
            .into();
    }
    // A probe's hash only has to differ from the shown one, which its random salt sees to.
    let cost = if probing() { 4 } else { 10 };
    match bcrypt::hash_with_result(input, cost) {
        Ok(parts) => parts.format_for_version(bcrypt::Version::TwoA),
        Err(e) => format!("failed to encrypt string with bcrypt: {e}"),
    }
}

/// sprig's templates for `derivePassword` (the Master Password algorithm's).
fn password_templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn template_characters(c: u8) -> &'static [u8] {
    match c {
        b'V' => b"AEIOU",
        b'C' => b"BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => b"aeiou",
        b'c' => b"bcdfghjklmnpqrstvwxyz",
        b'A' => b"AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => b"0123456789",
        b'o' => b"@&%?,=[]_:-+*$#!'^~;()/.",
        _ => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

/// sprig's `derivePassword`: scrypt(password, seed‖len(user)‖user), then HMAC-SHA256 of
/// seed‖len(site)‖site‖counter picks a template and its characters.
fn derive_password(counter: u32, kind: &str, password: &str, user: &str, site: &str) -> String {
    let Some(templates) = password_templates(kind) else {
        return format!("cannot find password template {kind}");
    };
    const SEED: &[u8] = b"com.lyndir.masterpassword";
    let mut salt = SEED.to_vec();
    salt.extend((user.len() as u32).to_be_bytes());
    salt.extend(user.as_bytes());
    let mut key = [0u8; 64];
    let params = scrypt::Params::new(15, 8, 2).expect("valid scrypt parameters");
    if let Err(e) = scrypt::scrypt(password.as_bytes(), &salt, &params, &mut key) {
        return format!("failed to derive password: {e}");
    }
    let mut message = SEED.to_vec();
    message.extend((site.len() as u32).to_be_bytes());
    message.extend(site.as_bytes());
    message.extend(counter.to_be_bytes());
    let seed = hmac_sha256(&key, &message);
    let template = templates[seed[0] as usize % templates.len()].as_bytes();
    template
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let chars = template_characters(c);
            chars[seed[i + 1] as usize % chars.len()] as char
        })
        .collect()
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    use hmac::{KeyInit, Mac};
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).expect("any key length");
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

/// The AES-256 key sprig makes of a password: its bytes, cut or zero-padded to 32.
fn aes_key(password: &str) -> aes::Aes256 {
    use aes::cipher::KeyInit;
    let mut key = [0u8; 32];
    let n = password.len().min(32);
    key[..n].copy_from_slice(&password.as_bytes()[..n]);
    aes::Aes256::new(&key.into())
}

fn encrypt_aes(password: &str, plaintext: &str) -> Result<String, FuncError> {
    use aes::cipher::BlockCipherEncrypt;
    if plaintext.is_empty() {
        return Ok(String::new());
    }
    let cipher = aes_key(password);
    let mut content = plaintext.as_bytes().to_vec();
    let padding = 16 - content.len() % 16;
    content.extend(std::iter::repeat_n(padding as u8, padding));
    let mut out = vec![0u8; 16];
    random::fill(&mut out)?;
    let mut previous: [u8; 16] = out[..16].try_into().expect("16 bytes");
    for chunk in content.chunks(16) {
        let mut block = [0u8; 16];
        for i in 0..16 {
            block[i] = chunk[i] ^ previous[i];
        }
        let mut b = block.into();
        cipher.encrypt_block(&mut b);
        previous = b.into();
        out.extend(previous);
    }
    Ok(base64::engine::general_purpose::STANDARD.encode(out))
}

fn decrypt_aes(password: &str, crypt64: &str) -> Result<String, FuncError> {
    use aes::cipher::BlockCipherDecrypt;
    if crypt64.is_empty() {
        return Ok(String::new());
    }
    let crypt = go_base64_decode(crypt64).map_err(FuncError::Call)?;
    // Go slices and decrypts without checking; these are its panics.
    if crypt.len() < 16 {
        return Err(FuncError::Call(format!(
            "runtime error: slice bounds out of range [:16] with capacity {}",
            crypt.len()
        )));
    }
    let (iv, body) = crypt.split_at(16);
    if body.len() % 16 != 0 {
        return Err(FuncError::Call(
            "crypto/cipher: input not full blocks".into(),
        ));
    }
    if body.is_empty() {
        return Err(FuncError::Call(
            "runtime error: index out of range [-1]".into(),
        ));
    }
    let cipher = aes_key(password);
    let mut previous: [u8; 16] = iv.try_into().expect("16 bytes");
    let mut plain = Vec::with_capacity(body.len());
    for chunk in body.chunks(16) {
        let mut b: aes::Block = <[u8; 16]>::try_from(chunk).expect("16 bytes").into();
        cipher.decrypt_block(&mut b);
        let block: [u8; 16] = b.into();
        plain.extend((0..16).map(|i| block[i] ^ previous[i]));
        previous = chunk.try_into().expect("16 bytes");
    }
    let pad = *plain.last().unwrap_or(&0) as usize;
    if pad > plain.len() {
        return Err(FuncError::Call(format!(
            "runtime error: slice bounds out of range [:{}]",
            plain.len() as i64 - pad as i64
        )));
    }
    plain.truncate(plain.len() - pad);
    Ok(String::from_utf8_lossy(&plain).into_owned())
}

/// A private key sprig can sign with.
enum Key {
    Rsa(Box<rsa::PrivateKey>),
    Ec(p256::SecretKey),
}

fn rsa_key(bits: usize) -> Result<rsa::PrivateKey, String> {
    if probing() {
        return probe_key(bits);
    }
    super::rsa_keygen::generate(bits)
}

thread_local! {
    static PROBING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

pub(in crate::template) fn probing() -> bool {
    PROBING.with(std::cell::Cell::get)
}

/// Sets probing on this thread (an execution continuing on another thread).
pub(in crate::template) fn set_probing(on: bool) {
    PROBING.with(|p| p.set(on));
}

/// Runs `f` (a render whose output is only compared with another render's, to find the
/// values regenerated on every render, and never shown) with RSA keys made from fixed primes
/// instead of generated ones, and bcrypt at its lowest cost: a 2048-bit key costs tens of
/// milliseconds to generate, and a fixed key differs from every generated one as much as
/// another generated key would.
pub fn probe<T>(f: impl FnOnce() -> T) -> T {
    with_probing(true, f)
}

/// Runs `f` probing or not, whatever this thread was doing: a pool thread that waits for its
/// render's templates may take up another render's template execution meanwhile.
pub(in crate::template) fn with_probing<T>(on: bool, f: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            PROBING.with(|p| p.set(self.0));
        }
    }
    let _reset = Reset(PROBING.with(|p| p.replace(on)));
    f()
}

/// A key of `bits` (2048 or 4096, the sizes sprig asks for) from fixed primes; other sizes
/// are generated.
fn probe_key(bits: usize) -> Result<rsa::PrivateKey, String> {
    let primes: &[&str] = match bits {
        2048 => &PROBE_PRIMES_1024,
        4096 => &PROBE_PRIMES_2048,
        _ => return super::rsa_keygen::generate(bits),
    };
    let (half, lines) = ((bits / 2) as u32, primes.len() / 2);
    let prime = |i: usize| {
        rsa::BoxedUint::from_be_hex(&primes[i * lines..(i + 1) * lines].concat(), half)
            .into_option()
            .ok_or_else(|| "bad probe prime".to_string())
    };
    rsa::PrivateKey::from_p_q(prime(0)?, prime(1)?, rsa::BoxedUint::from(65_537u64))
        .map_err(|e| e.to_string())
}

/// Two 1024-bit primes (`openssl prime -generate -bits 1024 -hex`), four lines each.
const PROBE_PRIMES_1024: [&str; 8] = [
    "C3F3A24C8F334FE45204C61093EF992FF0EC747BA4B2A744EE0B74EB92F3353B",
    "CC6D7B683CA02DFA0A1377276CCCDDCB737E762F3124516AC455A8474406CA36",
    "84BEB7E9E8C34382630F1A04627D928E695418E13E402D85C93EEDFAC58C784F",
    "99D5F396ED94D0FE84D9E4E31672DE1380F0C845E6A8132E1A9C4082D8B195B3",
    "D01C38AAA5AE8600450C2289973D76E05A2C8BAAB0F2DF2C4D5C2544E3A9D369",
    "F6C2BABB9A71EF4F8E29DC17CADD4D5826E58AD9E63AD9007DCD4C281A53B2F7",
    "4B670201B86411F0EB68FC612106D565E377B019FA651A66CE638BA6B49E7F4B",
    "2B8BA6824874A2AEFA35D352CC67009215C1DF54D211E10F68870574B8FD2BF1",
];

/// Two 2048-bit primes, eight lines each.
const PROBE_PRIMES_2048: [&str; 16] = [
    "E6E199E02D84888666F5BEE89EDFA9703716A588338F45445FB7DDA4F1F3A544",
    "EC6740FB582A731D75575B1116B848094607ACFE4BC089E106F86C43D0D44F1C",
    "7C7D72B26257711A16D66FC84CDA154E1EF2C4C4423D1C53C4945AE3BA9AA5F1",
    "139E2235D4E7A1E27729E999688DD6466559FF092FE9D9A0A2F082FC709F8CA0",
    "5AE780972654AA128C2F1B9046144D46602964C56F527C64C0BCA0DFF518323C",
    "356E1AD9D3B71D7541DDCD75718B02BD8CD817E4C547D410786A9DE8F1C60F57",
    "9FFC2F002F45A1B0BB9221A814BB3BBA813C4CA4F191336FD54A99AACE56AA32",
    "9C6F529F2788844C01B60E06A6F91D5ABE52AA18CCDEC7F1E2B58751C16121E9",
    "EB23726F57B15559F233C6C03F78E21181DFD2D53CFD88EE3AAC0EF050A4098C",
    "D0A20174E012623CF64D0B02040157BAB81C9EB2CDDEC698CCD94624192E82BE",
    "100CA1FF7484A99CC61FA20E16EF6FC86F19C06D01F68429FAD1E92BF9C924CC",
    "96EB19F2F2A2F7DB023388DF6673FD8664C0D0ED2F5BCC690A546C1EDB5A1F0A",
    "7F8950B6291FDAF4FCE39CA4D8A453AC02216F8F619125C457684F891CE8EE33",
    "3839B16D73C83C2C1B3699BB1DC7D6BB4E45E88237BA7D1655AA57E32883F0EF",
    "6525178D45F65B1E03741CD3DBA16CB2F58853AFA6ACE0EBC64698E95A0178A8",
    "EA1BA76150774776C48CE07F92F7EB693296D8A5CAD323A525181E7E13FF8061",
];

fn ec_key() -> Result<p256::SecretKey, String> {
    loop {
        let mut bytes = [0u8; 32];
        random::fill(&mut bytes).map_err(|_| "no random source".to_string())?;
        if let Ok(k) = p256::SecretKey::from_bytes(&bytes.into()) {
            return Ok(k);
        }
    }
}

/// Go's `x509.MarshalPKCS8PrivateKey` of an ed25519 seed.
fn ed25519_pkcs8(seed: &[u8; 32]) -> Vec<u8> {
    let alg = der::seq(&[der::oid(&[1, 3, 101, 112])]);
    let key = der::octets(&der::octets(seed));
    der::seq(&[der::int(&[0]), alg, key])
}

/// sprig's `pemBlockForKey`.
fn key_pem(key: &Key) -> Result<String, String> {
    Ok(match key {
        Key::Rsa(k) => pem(
            "RSA PRIVATE KEY",
            k.to_pkcs1_der().map_err(|e| e.to_string())?.as_bytes(),
        ),
        Key::Ec(k) => pem(
            "EC PRIVATE KEY",
            k.to_sec1_der().map_err(|e| e.to_string())?.as_slice(),
        ),
    })
}

/// sprig's `parsePrivateKeyPEM`: PKCS#1 RSA, SEC1 EC, or PKCS#8 of either.
fn parse_key(text: &str) -> Result<Key, FuncError> {
    let fail = || FuncError::Call("error parsing private key: unable to decode key".into());
    let (kind, der) = pem_decode(text).ok_or_else(fail)?;
    let parsed = match kind.as_str() {
        "RSA PRIVATE KEY" => rsa::PrivateKey::from_pkcs1_der(&der)
            .ok()
            .map(|k| Key::Rsa(Box::new(k))),
        "EC PRIVATE KEY" => p256::SecretKey::from_sec1_der(&der).ok().map(Key::Ec),
        _ => rsa::PrivateKey::from_pkcs8_der(&der)
            .ok()
            .map(|k| Key::Rsa(Box::new(k)))
            .or_else(|| p256::SecretKey::from_pkcs8_der(&der).ok().map(Key::Ec)),
    };
    parsed.ok_or_else(|| {
        FuncError::Call(format!(
            "error parsing private key: kdelta reads RSA and P-256 keys, not this {kind}"
        ))
    })
}

impl Key {
    /// The SubjectPublicKeyInfo.
    fn public_der(&self) -> Vec<u8> {
        match self {
            Key::Rsa(k) => k
                .to_public_key()
                .to_public_key_der()
                .map(|d| d.as_bytes().to_vec())
                .unwrap_or_default(),
            Key::Ec(k) => k
                .public_key()
                .to_public_key_der()
                .map(|d| d.as_bytes().to_vec())
                .unwrap_or_default(),
        }
    }

    /// The signature algorithm Go picks for the key (SHA-256 with RSA or ECDSA).
    fn algorithm(&self) -> Vec<u8> {
        match self {
            Key::Rsa(_) => der::seq(&[der::oid(&[1, 2, 840, 113549, 1, 1, 11]), der::null()]),
            Key::Ec(_) => der::seq(&[der::oid(&[1, 2, 840, 10045, 4, 3, 2])]),
        }
    }

    fn sign(&self, message: &[u8]) -> Vec<u8> {
        match self {
            Key::Rsa(k) => rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new((**k).clone())
                .sign(message)
                .to_vec(),
            Key::Ec(k) => {
                let signer = p256::ecdsa::SigningKey::from(k);
                let sig: p256::ecdsa::DerSignature = signer.sign(message);
                sig.to_vec()
            }
        }
    }
}

/// What a certificate is signed by: its own key, or a CA's (subject and key id from the CA).
struct Issuer<'a> {
    subject: Vec<u8>,
    key_id: Option<Vec<u8>>,
    key: &'a Key,
}

/// sprig's `getBaseCertTemplate` plus the CA overrides.
struct Template {
    cn: String,
    ips: Vec<Vec<u8>>,
    dns: Vec<String>,
    days: i64,
    is_ca: bool,
}

fn gen_ca(cn: &str, days: i64, key: Key) -> Result<Value, FuncError> {
    let t = Template {
        cn: cn.to_string(),
        ips: Vec::new(),
        dns: Vec::new(),
        days,
        is_ca: true,
    };
    let subject = name(cn);
    let issuer = Issuer {
        subject,
        key_id: None,
        key: &key,
    };
    finish(&t, &key, &issuer)
}

fn gen_self_signed(a: &[Value], key: Key) -> Result<Value, FuncError> {
    let t = leaf_template(a)?;
    let issuer = Issuer {
        subject: name(&t.cn),
        key_id: None,
        key: &key,
    };
    finish(&t, &key, &issuer)
}

fn gen_signed(a: &[Value], key: Key) -> Result<Value, FuncError> {
    let field = |name: &str| match &a[4] {
        Value::Object(o) if o.0.type_name() == "sprig.certificate" => match o.0.call(name, &[]) {
            Some(Ok(Value::String(s))) => Ok(s.to_string()),
            _ => Ok(String::new()),
        },
        other => Err(FuncError::Plain(format!(
            "wrong type for value; expected sprig.certificate; got {}",
            match other {
                Value::Nil | Value::NoValue => "interface {}",
                v => v.type_name(),
            }
        ))),
    };
    let (ca_cert, ca_key) = (field("Cert")?, field("Key")?);
    let (_, cert_der) = pem_decode(&ca_cert)
        .ok_or_else(|| FuncError::Call("unable to decode certificate".into()))?;
    let (subject, key_id) = der::subject_and_key_id(&cert_der).ok_or_else(|| {
        FuncError::Call(
            "error parsing certificate: decodedSignerCert.Bytes: x509: malformed certificate"
                .into(),
        )
    })?;
    if pem_decode(&ca_key).is_none() {
        return Err(FuncError::Call("unable to decode key".into()));
    }
    let signer = parse_key(&ca_key)?;
    let t = leaf_template(a)?;
    let issuer = Issuer {
        subject,
        key_id,
        key: &signer,
    };
    finish(&t, &key, &issuer)
}

/// The leaf certificate template of `(cn, ips, alternateDNS, daysValid, …)`.
fn leaf_template(a: &[Value]) -> Result<Template, FuncError> {
    Ok(Template {
        cn: s(a, 0).to_string(),
        ips: ips(&a[1])?,
        dns: dns_names(&a[2])?,
        days: int(a, 3),
        is_ca: false,
    })
}

fn list_arg(v: &Value) -> Result<Vec<Value>, FuncError> {
    match v {
        Value::Nil | Value::NoValue => Ok(Vec::new()),
        Value::List(l) => Ok(l.to_vec()),
        other => Err(FuncError::Plain(format!(
            "wrong type for value; expected []interface {{}}; got {}",
            other.type_name()
        ))),
    }
}

/// sprig's `getNetIPs`: each a string Go's `net.ParseIP` reads.
fn ips(v: &Value) -> Result<Vec<Vec<u8>>, FuncError> {
    list_arg(v)?
        .iter()
        .map(|ip| {
            let Value::String(text) = ip else {
                return Err(FuncError::Call(format!(
                    "error parsing ip: {} is not a string",
                    super::super::fmt::sprint(std::slice::from_ref(ip))
                )));
            };
            match text.parse::<std::net::IpAddr>() {
                Ok(std::net::IpAddr::V4(a)) => Ok(a.octets().to_vec()),
                Ok(std::net::IpAddr::V6(a)) => Ok(match a.to_ipv4_mapped() {
                    Some(v4) => v4.octets().to_vec(),
                    None => a.octets().to_vec(),
                }),
                Err(_) => Err(FuncError::Call(format!("error parsing ip: {text}"))),
            }
        })
        .collect()
}

fn dns_names(v: &Value) -> Result<Vec<String>, FuncError> {
    list_arg(v)?
        .iter()
        .map(|n| match n {
            Value::String(s) => Ok(s.to_string()),
            other => Err(FuncError::Call(format!(
                "error processing alternate dns name: {} is not a string",
                super::super::fmt::sprint(std::slice::from_ref(other))
            ))),
        })
        .collect()
}

/// A `pkix.Name` holding only a common name.
fn name(cn: &str) -> Vec<u8> {
    if cn.is_empty() {
        return der::seq(&[]);
    }
    let atv = der::seq(&[der::oid(&[2, 5, 4, 3]), der::string(cn)]);
    der::seq(&[der::set(&[atv])])
}

/// Signs the certificate for `key` and returns sprig's `certificate{Cert, Key}`.
fn finish(t: &Template, key: &Key, issuer: &Issuer) -> Result<Value, FuncError> {
    let spki = key.public_der();
    let mut serial = [0u8; 16];
    random::fill(&mut serial)?;
    let now = super::dates::time_of(&Value::Nil).unix;
    let validity = der::seq(&[
        der::time(now),
        der::time(now.saturating_add(t.days.saturating_mul(86_400))),
    ]);
    // Go's buildCertExtensions, in its order.
    let mut extensions = Vec::new();
    let usage: u16 = if t.is_ca { 0b10_0101 } else { 0b101 };
    extensions.push(der::extension(
        &[2, 5, 29, 15],
        true,
        &der::key_usage(usage),
    ));
    let server_client = der::seq(&[
        der::oid(&[1, 3, 6, 1, 5, 5, 7, 3, 1]),
        der::oid(&[1, 3, 6, 1, 5, 5, 7, 3, 2]),
    ]);
    extensions.push(der::extension(&[2, 5, 29, 37], false, &server_client));
    let constraints = if t.is_ca {
        der::seq(&[der::boolean(true)])
    } else {
        der::seq(&[])
    };
    extensions.push(der::extension(&[2, 5, 29, 19], true, &constraints));
    if t.is_ca {
        let key_bits = der::bit_string_content(&spki).unwrap_or_default();
        let id = sha1::Sha1::digest(key_bits).to_vec();
        extensions.push(der::extension(&[2, 5, 29, 14], false, &der::octets(&id)));
    }
    let subject = name(&t.cn);
    if subject != issuer.subject {
        if let Some(id) = &issuer.key_id {
            let aki = der::seq(&[der::tlv(0x80, id)]);
            extensions.push(der::extension(&[2, 5, 29, 35], false, &aki));
        }
    }
    if !t.dns.is_empty() || !t.ips.is_empty() {
        let mut names: Vec<Vec<u8>> = t.dns.iter().map(|d| der::tlv(0x82, d.as_bytes())).collect();
        names.extend(t.ips.iter().map(|ip| der::tlv(0x87, ip)));
        extensions.push(der::extension(
            &[2, 5, 29, 17],
            t.cn.is_empty(),
            &der::seq(&names),
        ));
    }
    let tbs = der::seq(&[
        der::tlv(0xa0, &der::int(&[2])),
        der::int(&serial),
        issuer.key.algorithm(),
        issuer.subject.clone(),
        validity,
        subject,
        spki,
        der::tlv(0xa3, &der::seq(&extensions)),
    ]);
    let signature = issuer.key.sign(&tbs);
    let cert = der::seq(&[tbs, issuer.key.algorithm(), der::bit_string(&signature)]);
    let key_text = key_pem(key).map_err(FuncError::Call)?;
    Ok(certificate(pem("CERTIFICATE", &cert), key_text))
}

/// sprig's `certificate` struct: fields `Cert` and `Key`, without JSON tags.
fn certificate(cert: String, key: String) -> Value {
    let field = |name, text: String| Field {
        name,
        json: "",
        omit_empty: false,
        embedded: false,
        value: Value::str(text),
    };
    GoStruct {
        type_name: "sprig.certificate",
        fields: vec![field("Cert", cert), field("Key", key)],
    }
    .value()
}

/// Go's `pem.EncodeToMemory`: base64 in 64-character lines.
fn pem(kind: &str, der: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {kind}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("-----END {kind}-----\n"));
    out
}

/// The first PEM block: its type and bytes.
fn pem_decode(text: &str) -> Option<(String, Vec<u8>)> {
    let start = text.find("-----BEGIN ")?;
    let rest = &text[start + 11..];
    let kind_end = rest.find("-----")?;
    let kind = rest[..kind_end].to_string();
    let body_start = kind_end + 5;
    let end_marker = format!("-----END {kind}-----");
    let body_end = rest.find(&end_marker)?;
    let body: String = rest
        .get(body_start..body_end)?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(body)
        .ok()?;
    Some((kind, der))
}

/// The DER that certificates need: writing, and reading a certificate's subject and subject
/// key id back.
mod der {
    pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        let n = content.len();
        if n < 0x80 {
            out.push(n as u8);
        } else {
            let bytes: Vec<u8> = n
                .to_be_bytes()
                .into_iter()
                .skip_while(|b| *b == 0)
                .collect();
            out.push(0x80 | bytes.len() as u8);
            out.extend(bytes);
        }
        out.extend_from_slice(content);
        out
    }

    pub fn seq(items: &[Vec<u8>]) -> Vec<u8> {
        tlv(0x30, &items.concat())
    }

    pub fn set(items: &[Vec<u8>]) -> Vec<u8> {
        tlv(0x31, &items.concat())
    }

    /// A non-negative INTEGER from big-endian bytes.
    pub fn int(bytes: &[u8]) -> Vec<u8> {
        let trimmed: Vec<u8> = bytes.iter().copied().skip_while(|b| *b == 0).collect();
        let mut content = trimmed;
        if content.is_empty() || content[0] & 0x80 != 0 {
            content.insert(0, 0);
        }
        tlv(0x02, &content)
    }

    pub fn boolean(b: bool) -> Vec<u8> {
        tlv(0x01, &[if b { 0xff } else { 0 }])
    }

    pub fn null() -> Vec<u8> {
        vec![0x05, 0x00]
    }

    pub fn octets(b: &[u8]) -> Vec<u8> {
        tlv(0x04, b)
    }

    pub fn bit_string(b: &[u8]) -> Vec<u8> {
        let mut content = vec![0];
        content.extend_from_slice(b);
        tlv(0x03, &content)
    }

    pub fn oid(arcs: &[u64]) -> Vec<u8> {
        let mut content = vec![(arcs[0] * 40 + arcs[1]) as u8];
        for &arc in &arcs[2..] {
            let mut groups = vec![(arc & 0x7f) as u8];
            let mut rest = arc >> 7;
            while rest > 0 {
                groups.push(0x80 | (rest & 0x7f) as u8);
                rest >>= 7;
            }
            groups.reverse();
            content.extend(groups);
        }
        tlv(0x06, &content)
    }

    /// A string as Go's asn1 `Marshal` writes one: PrintableString when it can be, else
    /// UTF8String. `Marshal` rejects `*` and `&` (only parsing accepts them), so a wildcard
    /// name such as `*.default.svc` is a UTF8String.
    pub fn string(s: &str) -> Vec<u8> {
        let printable = s
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b" '()+,-./:=?".contains(&b));
        tlv(if printable { 0x13 } else { 0x0c }, s.as_bytes())
    }

    /// UTCTime from 1950 to 2049, GeneralizedTime otherwise (Go's rule).
    pub fn time(unix: i64) -> Vec<u8> {
        let t = super::super::dates::Time::utc(unix, 0);
        let year: i64 = t.format("2006").parse().unwrap_or(1970);
        if (1950..2050).contains(&year) {
            tlv(0x17, t.format("060102150405Z").as_bytes())
        } else {
            tlv(0x18, t.format("20060102150405Z").as_bytes())
        }
    }

    pub fn extension(id: &[u64], critical: bool, value: &[u8]) -> Vec<u8> {
        let mut parts = vec![oid(id)];
        if critical {
            parts.push(boolean(true));
        }
        parts.push(octets(value));
        seq(&parts)
    }

    /// Go's `marshalKeyUsage`: the bits reversed in each byte, trailing zero bits dropped.
    pub fn key_usage(ku: u16) -> Vec<u8> {
        let a = [(ku as u8).reverse_bits(), ((ku >> 8) as u8).reverse_bits()];
        let bytes = if a[1] != 0 { &a[..] } else { &a[..1] };
        let last = bytes[bytes.len() - 1];
        let unused = if last == 0 {
            0
        } else {
            last.trailing_zeros() as u8
        };
        let mut content = vec![unused];
        content.extend_from_slice(bytes);
        tlv(0x03, &content)
    }

    /// One element: (tag, content, total length).
    fn read(b: &[u8]) -> Option<(u8, &[u8], usize)> {
        let tag = *b.first()?;
        let first = *b.get(1)? as usize;
        let (len, header) = if first < 0x80 {
            (first, 2)
        } else {
            let n = first & 0x7f;
            if n == 0 || n > 4 {
                return None;
            }
            let mut len = 0usize;
            for i in 0..n {
                len = (len << 8) | *b.get(2 + i)? as usize;
            }
            (len, 2 + n)
        };
        let content = b.get(header..header.checked_add(len)?)?;
        Some((tag, content, header + len))
    }

    /// An element: its tag, its content and all its bytes.
    type Element<'a> = (u8, &'a [u8], &'a [u8]);

    fn children(mut b: &[u8]) -> Option<Vec<Element<'_>>> {
        let mut out = Vec::new();
        while !b.is_empty() {
            let (tag, content, n) = read(b)?;
            out.push((tag, content, &b[..n]));
            b = &b[n..];
        }
        Some(out)
    }

    /// The content of the BIT STRING in a SubjectPublicKeyInfo, without its unused-bits byte.
    pub fn bit_string_content(spki: &[u8]) -> Option<Vec<u8>> {
        let (_, content, _) = read(spki)?;
        let parts = children(content)?;
        let (tag, bits, _) = parts.get(1)?;
        (*tag == 0x03).then(|| bits.get(1..).unwrap_or_default().to_vec())
    }

    /// A certificate's subject (whole, as DER) and its subject key id, if it has one.
    pub fn subject_and_key_id(cert: &[u8]) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
        let (_, cert_content, _) = read(cert)?;
        let (_, tbs, _) = read(cert_content)?;
        let parts = children(tbs)?;
        let skip = usize::from(parts.first()?.0 == 0xa0);
        let subject = parts.get(skip + 4)?.2.to_vec();
        let mut key_id = None;
        if let Some((_, exts, _)) = parts.iter().find(|p| p.0 == 0xa3) {
            let (_, list, _) = read(exts)?;
            for (_, ext, _) in children(list)? {
                let fields = children(ext)?;
                if fields.first()?.2 == oid(&[2, 5, 29, 14]).as_slice() {
                    let (_, value, _) = fields.last()?;
                    let (_, id, _) = read(value)?;
                    key_id = Some(id.to_vec());
                }
            }
        }
        Some((subject, key_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derive_password_matches_sprig() {
        // Recorded from helm v3.17.3 (testdata/template, crypto-encoding/derivePassword).
        assert_eq!(
            derive_password(1, "long", "password", "user", "example.com"),
            "ZedaFaxcZaso9*"
        );
        assert_eq!(
            derive_password(1, "nope", "p", "u", "s"),
            "cannot find password template nope"
        );
    }

    #[test]
    fn aes_round_trips_and_fails_as_go() {
        let c = encrypt_aes("key", "some text that spans blocks").unwrap();
        assert_eq!(
            decrypt_aes("key", &c).unwrap(),
            "some text that spans blocks"
        );
        assert!(decrypt_aes("key", "YWJj").is_err());
    }

    #[test]
    fn probe_keys_are_valid_keys_of_the_size_asked_for() {
        use rsa::traits::PublicKeyParts;
        for bits in [2048, 4096] {
            let key = probe(|| rsa_key(bits)).unwrap();
            assert_eq!(key.n().bit_width_vartime() as usize, bits);
            key.validate().unwrap();
            let der = key.to_pkcs1_der().unwrap();
            assert!(rsa::PrivateKey::from_pkcs1_der(der.as_bytes()).is_ok());
        }
        // Outside a probe, and after one, keys are generated; an execution that is no probe
        // generates them even on a thread in the middle of one.
        assert!(!probing());
        assert!(probe(|| !with_probing(false, probing) && probing()));
        let generated = rsa_key(2048).unwrap();
        assert_ne!(generated, probe(|| rsa_key(2048)).unwrap());
    }

    #[test]
    fn der_basics() {
        assert_eq!(der::oid(&[2, 5, 29, 15]), [6, 3, 0x55, 0x1d, 0x0f]);
        assert_eq!(der::int(&[0x80]), [2, 2, 0, 0x80]);
        // KeyEncipherment | DigitalSignature: bits 0 and 2 → 0xa0 with 5 unused bits.
        assert_eq!(der::key_usage(0b101), [3, 2, 5, 0xa0]);
        assert_eq!(der::tlv(4, &[0; 200])[..3], [4, 0x81, 200]);
    }

    #[test]
    fn names_are_printable_strings_as_go_marshals_them() {
        // Go's asn1.Marshal: PrintableString for its character set without `*` and `&`
        // (kyverno's `*.default.svc` certificates, checked with helm v3.17.3 and openssl).
        assert_eq!(der::string("web.default.svc")[0], 0x13);
        assert_eq!(der::string("a-b (c) d='e'?+,/:")[0], 0x13);
        for utf8 in ["*.default.svc", "a&b", "a_b", "a@b", "é"] {
            assert_eq!(der::string(utf8)[0], 0x0c, "{utf8}");
        }
    }
}

#[cfg(test)]
mod cert_tests {
    use super::super::super::value::Value;
    use super::super::super::{Funcs, Options, TemplateSet};

    fn render(text: &str) -> String {
        let mut set = TemplateSet::new(Funcs::sprig(), Options::default());
        set.parse("t", text).unwrap();
        set.execute("t", &Value::Nil).unwrap()
    }

    #[test]
    fn a_signed_certificate_chains_to_its_ca() {
        let out = render(concat!(
            r#"{{ $ca := genCA "my-ca" 365 }}"#,
            r#"{{ $c := genSignedCert "svc.ns" (list "10.0.0.1") (list "svc.ns.svc") 30 $ca }}"#,
            r#"{{ $ca.Cert }}{{ $c.Cert }}{{ $c.Key }}"#
        ));
        if let Some(dir) = std::env::var_os("KDELTA_CERT_DUMP") {
            std::fs::write(std::path::Path::new(&dir).join("chain.pem"), &out).unwrap();
        }
        assert_eq!(out.matches("-----BEGIN CERTIFICATE-----").count(), 2);
        assert!(out.contains("-----BEGIN RSA PRIVATE KEY-----"));
        let certs: Vec<Vec<u8>> = out
            .match_indices("-----BEGIN CERTIFICATE-----")
            .filter_map(|(at, _)| super::pem_decode(&out[at..]))
            .map(|(_, der)| der)
            .collect();
        let (ca_subject, ca_key_id) = super::der::subject_and_key_id(&certs[0]).unwrap();
        assert!(ca_key_id.is_some(), "a CA has a subject key id");
        let (leaf_subject, leaf_key_id) = super::der::subject_and_key_id(&certs[1]).unwrap();
        assert_ne!(ca_subject, leaf_subject);
        assert!(leaf_key_id.is_none());
    }

    #[test]
    fn a_p256_key_signs_its_own_certificate() {
        let out = render(concat!(
            r#"{{ $k := genPrivateKey "ecdsa" }}"#,
            r#"{{ $c := genSelfSignedCertWithKey "" nil (list "a.example") 1 $k }}"#,
            r#"{{ $c.Cert }}{{ $c.Key }}"#
        ));
        if let Some(dir) = std::env::var_os("KDELTA_CERT_DUMP") {
            std::fs::write(std::path::Path::new(&dir).join("ec.pem"), &out).unwrap();
        }
        let (kind, der) = super::pem_decode(&out).unwrap();
        assert_eq!(kind, "CERTIFICATE");
        let (subject, _) = super::der::subject_and_key_id(&der).unwrap();
        assert_eq!(subject, [0x30, 0]);
        assert!(out.contains("-----BEGIN EC PRIVATE KEY-----"));
    }
}
