//! RSA keys as Go's `crypto/rsa.GenerateKey` (Go 1.23, which helm v3.17.3 is built with) makes
//! them for `genPrivateKey "rsa"` (4096 bits) and the certificate functions (2048): two primes
//! of half the size with their top two bits set, e = 65537, d = e⁻¹ mod (p−1)(q−1).
//!
//! Finding the primes is nearly all of a chart's time where it makes a key: a 4096-bit key took
//! 1 s with the rsa crate's generator (1.4 s in helm), so that bitnami's etcd chart rendered only
//! 1.6× faster than `helm template`. Here a random odd start is sieved by the odd primes below
//! 2^16 (2^20 for a 4096-bit key's), the survivors are tested by Miller–Rabin to base 2 in
//! fixed-width Montgomery arithmetic (to base 2 that is squarings and doublings only; on x86-64
//! the rows of a square are added with `mulx`/`adcx`/`adox`), and the first to pass is
//! confirmed by crypto-primes' `is_prime` (Baillie–PSW, the test the rsa crate's generator
//! confirms with). Up to four threads search for the two primes together.

use num_bigint::BigUint;
use rsa::BoxedUint;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// Go's public exponent.
const E: u64 = 65_537;

/// A key of `bits`, generated as Go generates one; sizes other than 2048 and 4096 (which sprig
/// never asks for) by the rsa crate.
pub fn generate(bits: usize) -> Result<rsa::PrivateKey, String> {
    match bits {
        2048 => generate_with::<16>(),
        4096 => generate_with::<32>(),
        _ => rsa::PrivateKey::new(&mut getrandom::SysRng, bits).map_err(|e| e.to_string()),
    }
}

/// A key whose primes have `N` 64-bit limbs.
fn generate_with<const N: usize>() -> Result<rsa::PrivateKey, String> {
    let bits = 128 * N as u32;
    loop {
        let [p, q] = two_primes::<N>()?;
        let (p_big, q_big) = (big(&p), big(&q));
        let one = BigUint::from(1u32);
        let totient = (&p_big - &one) * (&q_big - &one);
        // Go starts again with two new primes when e has no inverse (gcd(e, φ) ≠ 1).
        let Some(d) = BigUint::from(E).modinv(&totient) else {
            continue;
        };
        let n = &p_big * &q_big;
        let uint = |v: &BigUint, width: u32| {
            BoxedUint::from_be_slice(&v.to_bytes_be(), width).map_err(|e| e.to_string())
        };
        let primes = vec![uint(&p_big, bits / 2)?, uint(&q_big, bits / 2)?];
        return rsa::PrivateKey::from_components(
            uint(&n, bits)?,
            BoxedUint::from(E),
            uint(&d, bits)?,
            primes,
        )
        .map_err(|e| e.to_string());
    }
}

/// Little-endian limbs as big-endian bytes, the order both big-integer crates read.
fn be_bytes<const N: usize>(limbs: &[u64; N]) -> Vec<u8> {
    limbs.iter().rev().flat_map(|l| l.to_be_bytes()).collect()
}

fn big<const N: usize>(limbs: &[u64; N]) -> BigUint {
    BigUint::from_bytes_be(&be_bytes(limbs))
}

/// The most threads that search for one key's primes.
const MAX_SEARCHERS: usize = 4;

/// Candidates looked at from one random start before drawing another (they span 8,192): at
/// 2048 bits, where the mean gap between primes is 1,420, a start runs out about three times
/// in a thousand; at 1024 bits (a gap of 710) almost never.
const WINDOW: usize = 4096;

/// Two distinct random primes of `64 N` bits whose top two bits are set (so that their product
/// has exactly `128 N` bits), little-endian limbs, in the order found. This thread and a helper
/// for each other thread of the pool (up to [`MAX_SEARCHERS`] in all) search from random
/// starts of their own, and each confirms what it finds while the others search on. Finding a
/// prime is memoryless, so sharing the search halves the wait on two cores at no cost in work
/// (the candidates of a search that finds nothing were as likely to be prime). The helpers are
/// threads of their own rather than the pool's: a pool thread waiting for them would take up
/// another template's execution in the middle of this one's.
fn two_primes<const N: usize>() -> Result<[[u64; N]; 2], String> {
    let search = Search::<N> {
        done: AtomicBool::new(false),
        found: Mutex::new(Vec::new()),
        error: Mutex::new(None),
    };
    // With `--jobs 1` none; past three the wait for the last confirmation dominates, and a
    // repository's diff on many cores may have a key made in every pool thread at once.
    let helpers = rayon::current_num_threads().clamp(1, MAX_SEARCHERS) - 1;
    std::thread::scope(|scope| {
        for _ in 0..helpers {
            // A helper that cannot start leaves the search to the others.
            let _ = std::thread::Builder::new()
                .name("kdelta-prime".into())
                .spawn_scoped(scope, || search.run());
        }
        search.run();
    });
    if let Some(error) = lock(&search.error).take() {
        return Err(error);
    }
    let found = lock(&search.found);
    match found[..] {
        [p, q, ..] => Ok([p, q]),
        _ => Err("no prime found".to_string()),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The state the searching threads share.
struct Search<const N: usize> {
    /// Two primes are found, or the search failed.
    done: AtomicBool,
    found: Mutex<Vec<[u64; N]>>,
    error: Mutex<Option<String>>,
}

impl<const N: usize> Search<N> {
    /// Searches until the search is done, from a new random start after each prime found
    /// (so that p and q are independent, as Go draws them).
    fn run(&self) {
        let mut sieve = vec![true; WINDOW];
        while !self.done.load(Ordering::Relaxed) {
            let mut start = match random_limbs::<N>() {
                Ok(start) => start,
                Err(e) => {
                    *lock(&self.error) = Some(e);
                    self.done.store(true, Ordering::Relaxed);
                    return;
                }
            };
            start[N - 1] |= 0b11 << 62;
            start[0] |= 1;
            cross_out_small_factors(&start, &mut sieve);
            for k in (0..WINDOW).filter(|&k| sieve[k]) {
                let Some(candidate) = add_small(&start, 2 * k as u64) else {
                    break;
                };
                if candidate[N - 1] >> 62 != 0b11 || self.done.load(Ordering::Relaxed) {
                    break;
                }
                if Montgomery::new(&candidate).strong_probable_prime_base_two()
                    && confirmed(&candidate)
                {
                    let mut found = lock(&self.found);
                    if !found.contains(&candidate) {
                        found.push(candidate);
                    }
                    if found.len() >= 2 {
                        self.done.store(true, Ordering::Relaxed);
                    }
                    break;
                }
            }
        }
    }
}

/// Clears `sieve[k]` where an odd prime below the sieve's bound divides `start + 2k` (`start`
/// odd).
fn cross_out_small_factors<const N: usize>(start: &[u64; N], sieve: &mut [bool]) {
    sieve.fill(true);
    // The residues three primes at a time: one pass over the limbs for their product.
    for group in sieving_primes::<N>().chunks(3) {
        let product = group.iter().map(|&q| u64::from(q)).product();
        let r_product = rem(start, product);
        for &q in group {
            let q = u64::from(q);
            let r = r_product % q;
            // start + 2k ≡ 0 (mod q) ⇔ k ≡ −r · 2⁻¹, and 2⁻¹ = (q + 1) / 2.
            let mut k = ((q - r) % q) * q.div_ceil(2) % q;
            while let Some(slot) = sieve.get_mut(k as usize) {
                *slot = false;
                k += q;
            }
        }
    }
}

fn random_limbs<const N: usize>() -> Result<[u64; N], String> {
    let mut bytes = vec![0u8; 8 * N];
    super::random::fill(&mut bytes).map_err(|_| "no random source".to_string())?;
    let mut limbs = [0u64; N];
    for (limb, chunk) in limbs.iter_mut().zip(bytes.chunks_exact(8)) {
        *limb = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
    }
    Ok(limbs)
}

/// crypto-primes' verdict on a candidate that passed the base-2 test.
fn confirmed<const N: usize>(candidate: &[u64; N]) -> bool {
    BoxedUint::from_be_slice(&be_bytes(candidate), 64 * N as u32)
        .is_ok_and(|uint| crypto_primes::is_prime(crypto_primes::Flavor::Any, &uint))
}

/// The odd primes a candidate of `N` limbs is sieved by: below 2^16 for a 1024-bit prime,
/// below 2^20 for a 2048-bit one, whose base-2 test costs six times as much: the deeper sieve
/// leaves 58 tests a prime instead of 72 (2.1 ms each) for 5.5 ms a window instead of 1.3,
/// and 3.4 ms once for the table.
fn sieving_primes<const N: usize>() -> &'static [u32] {
    static BELOW_2_16: OnceLock<Vec<u32>> = OnceLock::new();
    static BELOW_2_20: OnceLock<Vec<u32>> = OnceLock::new();
    if N >= 32 {
        BELOW_2_20.get_or_init(|| odd_primes_below(1 << 20))
    } else {
        BELOW_2_16.get_or_init(|| odd_primes_below(1 << 16))
    }
}

fn odd_primes_below(bound: usize) -> Vec<u32> {
    let mut composite = vec![false; bound];
    let mut primes = Vec::new();
    for i in (3..bound).step_by(2) {
        if !composite[i] {
            primes.push(i as u32);
            for j in (i * i..bound).step_by(2 * i) {
                composite[j] = true;
            }
        }
    }
    primes
}

/// `a mod q`.
fn rem<const N: usize>(a: &[u64; N], q: u64) -> u64 {
    a.iter().rev().fold(0, |r, &limb| {
        ((u128::from(r) << 64 | u128::from(limb)) % u128::from(q)) as u64
    })
}

/// `a + b`, or `None` when it overflows `N` limbs.
fn add_small<const N: usize>(a: &[u64; N], b: u64) -> Option<[u64; N]> {
    let mut sum = *a;
    let mut carry = b;
    for limb in &mut sum {
        let (s, overflow) = limb.overflowing_add(carry);
        *limb = s;
        carry = u64::from(overflow);
    }
    (carry == 0).then_some(sum)
}

/// Arithmetic modulo an odd `p` of `N` limbs whose top bit is set, on values in Montgomery
/// form (x · R mod p, R = 2^(64 N)), each kept below p.
struct Montgomery<const N: usize> {
    p: [u64; N],
    /// −p⁻¹ mod 2^64.
    neg_inv: u64,
    rows: Rows,
}

impl<const N: usize> Montgomery<N> {
    fn new(p: &[u64; N]) -> Self {
        // Newton's iteration doubles the correct low bits of p⁻¹; p is its own inverse mod 8.
        let mut inv = p[0];
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p[0].wrapping_mul(inv)));
        }
        Montgomery {
            p: *p,
            neg_inv: inv.wrapping_neg(),
            rows: Rows::fastest(),
        }
    }

    /// Miller–Rabin to base 2: with p − 1 = d · 2^s, 2^d ≡ ±1 or 2^(d·2^r) ≡ −1 for some r < s.
    fn strong_probable_prime_base_two(&self) -> bool {
        // R mod p is R − p, as p > R / 2.
        let mut one = self.p;
        negate(&mut one);
        let mut minus_one = self.p;
        sub_assign(&mut minus_one, &one);
        let mut p_minus_one = self.p;
        p_minus_one[0] -= 1; // p is odd
        let s = trailing_zeros(&p_minus_one);
        // 2^d, left to right: the top bit of d is the top bit of p − 1, set.
        let mut x = one;
        self.double(&mut x);
        for bit in (s..64 * N - 1).rev() {
            x = self.square(&x);
            if (p_minus_one[bit / 64] >> (bit % 64)) & 1 == 1 {
                self.double(&mut x);
            }
        }
        if x == one || x == minus_one {
            return true;
        }
        for _ in 1..s {
            x = self.square(&x);
            if x == minus_one {
                return true;
            }
            if x == one {
                return false;
            }
        }
        false
    }

    /// x ← 2x mod p.
    fn double(&self, x: &mut [u64; N]) {
        let mut top = 0;
        for limb in x.iter_mut() {
            let shifted = (*limb << 1) | top;
            top = *limb >> 63;
            *limb = shifted;
        }
        if top != 0 || !less(x, &self.p) {
            sub_assign(x, &self.p);
        }
    }

    /// a² · R⁻¹ mod p. (Summing column by column in registers, Koç's product scanning, was
    /// no faster; nor was the whole product a · a, with rows of one length, instead of twice
    /// the products of distinct limbs.)
    fn square(&self, a: &[u64; N]) -> [u64; N] {
        // Twice the products of distinct limbs, then the square of each on the diagonal.
        let mut t = [0u64; 2 * MAX_LIMBS];
        for i in 0..N {
            t[i + N] = self
                .rows
                .add_product(&mut t[2 * i + 1..i + N], &a[i + 1..], a[i]);
        }
        let mut top = 0;
        for limb in &mut t[..2 * N] {
            let shifted = (*limb << 1) | top;
            top = *limb >> 63;
            *limb = shifted;
        }
        let mut carry = 0u64;
        for i in 0..N {
            let sq = u128::from(a[i]) * u128::from(a[i]);
            let low = u128::from(t[2 * i]) + (sq & u128::from(u64::MAX)) + u128::from(carry);
            t[2 * i] = low as u64;
            let high = u128::from(t[2 * i + 1]) + (sq >> 64) + (low >> 64);
            t[2 * i + 1] = high as u64;
            carry = (high >> 64) as u64;
        }
        // Reduction: N times, the multiple of p that clears t's lowest word left.
        let mut top_carry = 0u64;
        for i in 0..N {
            let m = t[i].wrapping_mul(self.neg_inv);
            let carry = self.rows.add_product(&mut t[i..i + N], &self.p, m);
            let s = u128::from(t[i + N]) + u128::from(carry) + u128::from(top_carry);
            t[i + N] = s as u64;
            top_carry = (s >> 64) as u64;
        }
        let mut out = [0u64; N];
        out.copy_from_slice(&t[N..2 * N]);
        if top_carry != 0 || !less(&out, &self.p) {
            sub_assign(&mut out, &self.p);
        }
        out
    }
}

/// How a row `acc += a · v` is added: the one operation of a square and its reduction.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Rows {
    Portable,
    /// x86-64 with BMI2 and ADX: `mulx` and two carry chains (`adcx`, `adox`) side by side.
    /// The base-2 test of a 2048-bit prime (a 4096-bit key's) takes 2.1 ms instead of the
    /// portable loop's 3.5; of a 1024-bit one, 0.36 instead of 0.44.
    #[cfg(target_arch = "x86_64")]
    MulxAdx,
}

impl Rows {
    fn fastest() -> Rows {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("adx")
        {
            return Rows::MulxAdx;
        }
        Rows::Portable
    }

    /// acc ← acc + a · v over `acc.len()` limbs; returns the carry limb.
    fn add_product(self, acc: &mut [u64], a: &[u64], v: u64) -> u64 {
        let len = acc.len().min(a.len());
        match self {
            Rows::Portable => {
                let mut carry = 0u64;
                for (x, &y) in acc[..len].iter_mut().zip(a) {
                    let s = u128::from(*x) + u128::from(y) * u128::from(v) + u128::from(carry);
                    *x = s as u64;
                    carry = (s >> 64) as u64;
                }
                carry
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `fastest` chose this only where the CPU has BMI2 and ADX; both slices
            // hold `len` limbs.
            Rows::MulxAdx => unsafe { add_product_mulx_adx(acc.as_mut_ptr(), a.as_ptr(), len, v) },
        }
    }
}

/// acc[..len] += a[..len] · v with `mulx`, `adcx` and `adox`; the carry limb. The low words
/// go into acc on the carry flag's chain and the high words into the next limb on the
/// overflow flag's, so nothing in the loop may touch the flags (`lea`, `jrcxz`, `mov` only):
/// `len % 4` limbs one at a time, then four at a time.
///
/// # Safety
/// The CPU has BMI2 and ADX; `acc` and `a` are valid for `len` limbs.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,adx")]
unsafe fn add_product_mulx_adx(acc: *mut u64, a: *const u64, len: usize, v: u64) -> u64 {
    let carry: u64;
    // SAFETY: reads `a[..len]`, reads and writes `acc[..len]`, as the caller guarantees.
    unsafe {
        std::arch::asm!(
            "xor {high_before:e}, {high_before:e}", // also clears CF and OF
            "2:",
            "jrcxz 3f",
            "mulx {high}, {low}, qword ptr [{a}]",
            "adcx {low}, qword ptr [{acc}]",
            "adox {low}, {high_before}",
            "mov qword ptr [{acc}], {low}",
            "mov {high_before}, {high}",
            "lea {a}, [{a} + 8]",
            "lea {acc}, [{acc} + 8]",
            "lea rcx, [rcx - 1]",
            "jmp 2b",
            "3:",
            "mov rcx, {quads}",
            "4:",
            "jrcxz 5f",
            "mulx {high}, {low}, qword ptr [{a}]",
            "adcx {low}, qword ptr [{acc}]",
            "adox {low}, {high_before}",
            "mov qword ptr [{acc}], {low}",
            "mulx {high_before}, {low}, qword ptr [{a} + 8]",
            "adcx {low}, qword ptr [{acc} + 8]",
            "adox {low}, {high}",
            "mov qword ptr [{acc} + 8], {low}",
            "mulx {high}, {low}, qword ptr [{a} + 16]",
            "adcx {low}, qword ptr [{acc} + 16]",
            "adox {low}, {high_before}",
            "mov qword ptr [{acc} + 16], {low}",
            "mulx {high_before}, {low}, qword ptr [{a} + 24]",
            "adcx {low}, qword ptr [{acc} + 24]",
            "adox {low}, {high}",
            "mov qword ptr [{acc} + 24], {low}",
            "lea {a}, [{a} + 32]",
            "lea {acc}, [{acc} + 32]",
            "lea rcx, [rcx - 1]",
            "jmp 4b",
            "5:",
            // The last high word and both chains' carries: the sum is below 2^64.
            "mov {low:e}, 0",
            "adcx {high_before}, {low}",
            "adox {high_before}, {low}",
            a = inout(reg) a => _,
            acc = inout(reg) acc => _,
            quads = in(reg) len / 4,
            in("rdx") v,
            inout("rcx") len % 4 => _,
            high = out(reg) _,
            low = out(reg) _,
            high_before = out(reg) carry,
            options(nostack),
        );
    }
    carry
}

/// The widest modulus: a 2048-bit prime.
const MAX_LIMBS: usize = 32;

fn less<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    a.iter().rev().cmp(b.iter().rev()).is_lt()
}

/// a ← a − b, wrapping.
fn sub_assign<const N: usize>(a: &mut [u64; N], b: &[u64; N]) {
    let mut borrow = false;
    for (x, &y) in a.iter_mut().zip(b) {
        let (d, b1) = x.overflowing_sub(y);
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        *x = d;
        borrow = b1 | b2;
    }
}

/// a ← 2^(64 N) − a.
fn negate<const N: usize>(a: &mut [u64; N]) {
    let mut zero = [0u64; N];
    sub_assign(&mut zero, a);
    *a = zero;
}

fn trailing_zeros<const N: usize>(a: &[u64; N]) -> usize {
    a.iter()
        .position(|&limb| limb != 0)
        .map_or(64 * N, |i| 64 * i + a[i].trailing_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsa::traits::{PrivateKeyParts, PublicKeyParts};

    /// 2^(64 N) − c.
    fn below_power_of_two<const N: usize>(c: u64) -> [u64; N] {
        let mut limbs = [u64::MAX; N];
        let mut less_one = [0u64; N];
        less_one[0] = c - 1;
        sub_assign(&mut limbs, &less_one);
        limbs
    }

    /// Values whose squares are checked: the edges and a few spread between.
    fn samples<const N: usize>(p: &[u64; N]) -> Vec<[u64; N]> {
        let mut p_minus_one = *p;
        p_minus_one[0] -= 1;
        let mut values = vec![[0u64; N], p_minus_one];
        let mut one = [0u64; N];
        one[0] = 1;
        values.push(one);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..6 {
            let mut v = [0u64; N];
            for limb in &mut v {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *limb = x;
            }
            v[N - 1] &= p[N - 1] >> 1; // below p
            values.push(v);
        }
        values
    }

    fn check_squares<const N: usize>(p: [u64; N]) {
        let p_big = big(&p);
        let r_inv = (BigUint::from(1u32) << (64 * N))
            .modinv(&p_big)
            .expect("p is odd");
        for rows in [Rows::Portable, Rows::fastest()] {
            let m = Montgomery {
                rows,
                ..Montgomery::new(&p)
            };
            for a in samples(&p) {
                let expected = big(&a) * big(&a) * &r_inv % &p_big;
                assert_eq!(
                    big(&m.square(&a)),
                    expected,
                    "{rows:?}, {N} limbs, a = {a:x?}"
                );
            }
        }
    }

    #[test]
    fn rows_agree_with_the_portable_loop() {
        // On a CPU without BMI2 and ADX both are the portable loop; CI's has them.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for len in 0..=33 {
            for v in [0, 1, u64::MAX, next()] {
                let a: Vec<u64> = (0..len)
                    .map(|i| if i % 3 == 0 { u64::MAX } else { next() })
                    .collect();
                let acc: Vec<u64> = (0..len)
                    .map(|i| if i % 2 == 0 { u64::MAX } else { next() })
                    .collect();
                let (mut portable, mut fastest) = (acc.clone(), acc);
                let c1 = Rows::Portable.add_product(&mut portable, &a, v);
                let c2 = Rows::fastest().add_product(&mut fastest, &a, v);
                assert_eq!((c1, &portable), (c2, &fastest), "{len} limbs, v = {v:x}");
            }
        }
    }

    #[test]
    fn squares_are_montgomery_squares() {
        // Any odd modulus with its top bit set; primes are not needed.
        check_squares::<1>([0xc000_0000_0000_0001]);
        check_squares::<2>(below_power_of_two(159));
        check_squares::<16>(below_power_of_two(105));
        let mut wide = [0x5555_5555_5555_5555u64; 32];
        wide[0] |= 1;
        wide[31] |= 0b11 << 62;
        check_squares::<32>(wide);
    }

    /// The base-2 test against crypto-primes' Baillie–PSW on the odd numbers just below
    /// 2^(64 N) that no small prime divides: they agree but on base-2 strong pseudoprimes,
    /// which are far too rare to meet here.
    fn check_against_crypto_primes<const N: usize>(below: u64) -> usize {
        let mut primes = 0;
        for c in (1..below).step_by(2) {
            let candidate = below_power_of_two::<N>(c);
            if sieving_primes::<N>()
                .iter()
                .any(|&q| rem(&candidate, u64::from(q)) == 0)
            {
                continue;
            }
            let ours = Montgomery::new(&candidate).strong_probable_prime_base_two();
            assert_eq!(ours, confirmed(&candidate), "2^{} - {c}", 64 * N);
            primes += usize::from(ours);
        }
        primes
    }

    #[test]
    fn the_base_two_test_agrees_with_baillie_psw() {
        // 2^128 − 159 and 2^1024 − 105 are the largest primes below those powers.
        assert!(check_against_crypto_primes::<2>(3000) > 10);
        assert!(check_against_crypto_primes::<16>(200) >= 1);
    }

    /// Every offset of a window is crossed out exactly when a sieving prime divides it.
    fn check_sieve<const N: usize>(start: [u64; N], window: usize) {
        let mut sieve = vec![true; window];
        cross_out_small_factors(&start, &mut sieve);
        for (k, &open) in sieve.iter().enumerate() {
            let candidate = add_small(&start, 2 * k as u64).unwrap();
            let divided = sieving_primes::<N>()
                .iter()
                .any(|&q| rem(&candidate, u64::from(q)) == 0);
            assert_eq!(open, !divided, "{N} limbs, start + {}", 2 * k);
        }
    }

    #[test]
    fn the_sieve_crosses_out_exactly_the_multiples_of_the_sieving_primes() {
        check_sieve([0xd1b5_4a32_d192_ed03u64], 1000);
        // A 2048-bit start sieved to 2^20, its residues three primes at a time.
        check_sieve(below_power_of_two::<32>(1_000_001), 24);
    }

    #[test]
    fn keys_are_made_as_go_makes_them() {
        let key = generate(2048).unwrap();
        key.validate().unwrap();
        let uint = |u: &BoxedUint| BigUint::from_bytes_be(&u.to_be_bytes());
        let (n, e, d) = (uint(key.n()), uint(key.e()), uint(key.d()));
        assert_eq!(n.bits(), 2048);
        assert_eq!(e, BigUint::from(65_537u32));
        let [p, q] = key.primes() else {
            panic!("two primes");
        };
        let (p, q) = (uint(p), uint(q));
        assert_eq!(&p * &q, n);
        let one = BigUint::from(1u32);
        for prime in [&p, &q] {
            assert_eq!(prime.bits(), 1024);
            assert!(prime.bit(1022), "the top two bits are set");
        }
        // d is e's inverse modulo Euler's totient, as Go 1.23 computes it (not Carmichael's).
        let totient = (&p - &one) * (&q - &one);
        assert!(d < totient);
        assert_eq!(&d * &e % &totient, one);
        assert_ne!(generate(2048).unwrap(), key);
    }
}
