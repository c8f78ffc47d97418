//! The IP and CIDR libraries: `ip()`, `isIP()`, `ip.isCanonical()`, `cidr()`, `isCIDR()`, the
//! members of `net.IP` and `net.CIDR`, and `string()` of both, with Go's `net/netip` rules as
//! the API server applies them: no zones, no IPv4-mapped IPv6 addresses, no leading zeros in
//! IPv4 octets or prefix lengths; a CIDR keeps its host bits (`masked()` clears them).

use super::kubernetes_type;
use cel::common::types::{CelBool, CelInt, CelString};
use cel::{DeclarationError, Env, ExecutionError};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A `net.IP` value.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ip(IpAddr);

kubernetes_type!(Ip, "net.IP");

/// A `net.CIDR` value: an address (host bits kept) and a prefix length.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Cidr {
    addr: IpAddr,
    bits: u8,
}

kubernetes_type!(Cidr, "net.CIDR");

/// `parseIPAddr`: `netip.ParseAddr`, without zones or IPv4-mapped IPv6 addresses.
fn parse_ip(s: &str) -> Result<IpAddr, String> {
    let addr = s.parse::<IpAddr>().map_err(|_| {
        if s.contains('%') {
            format!("IP address {s:?} with zone value is not allowed")
        } else {
            format!("IP Address {s:?} parse error during conversion from string: ParseAddr({s:?}): unable to parse IP")
        }
    })?;
    if let IpAddr::V6(v6) = addr {
        if v6.to_ipv4_mapped().is_some() {
            return Err(format!("IPv4-mapped IPv6 address {s:?} is not allowed"));
        }
    }
    Ok(addr)
}

/// `parseCIDR`: `netip.ParsePrefix`, without IPv4-mapped IPv6 addresses.
fn parse_cidr(s: &str) -> Result<Cidr, String> {
    let err = || {
        format!("network address parse error during conversion from string: netip.ParsePrefix({s:?}): invalid prefix")
    };
    let (ip, bits) = s.split_once('/').ok_or_else(err)?;
    let addr = ip.parse::<IpAddr>().map_err(|_| err())?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    // Go's ParsePrefix refuses a sign and leading zeros.
    if bits.is_empty() || (bits.len() > 1 && !bits.starts_with(|c: char| ('1'..='9').contains(&c)))
    {
        return Err(err());
    }
    let bits = bits
        .parse::<u8>()
        .ok()
        .filter(|b| *b <= max)
        .ok_or_else(err)?;
    if let IpAddr::V6(v6) = addr {
        if v6.to_ipv4_mapped().is_some() {
            return Err(format!("IPv4-mapped IPv6 address {s:?} is not allowed"));
        }
    }
    Ok(Cidr { addr, bits })
}

/// The address with the bits past `bits` cleared.
fn mask(addr: IpAddr, bits: u8) -> IpAddr {
    match addr {
        IpAddr::V4(a) => {
            let m = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            IpAddr::V4(Ipv4Addr::from(u32::from(a) & m))
        }
        IpAddr::V6(a) => {
            let m = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            IpAddr::V6(Ipv6Addr::from(u128::from(a) & m))
        }
    }
}

impl Cidr {
    /// `netip.Prefix.Contains`.
    fn contains(&self, ip: IpAddr) -> bool {
        ip.is_ipv4() == self.addr.is_ipv4() && mask(ip, self.bits) == mask(self.addr, self.bits)
    }
}

/// True when `s` is an IP address the API server accepts.
pub(super) fn is_ip_string(s: &CelString<'_>) -> CelBool {
    CelBool::from(parse_ip(s.inner()).is_ok())
}

fn is_cidr_string(s: &CelString<'_>) -> CelBool {
    CelBool::from(parse_cidr(s.inner()).is_ok())
}

pub(super) fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_overload!(env, fn ip: (CelString) -> Result<Ip>)?;
    cel::add_overload!(env, fn is_ip_string: (CelString) -> CelBool, name = "isIP")?;
    cel::add_overload!(env, fn is_canonical: (CelString) -> Result<CelBool>,
        name = "ip.isCanonical")?;
    cel::add_overload!(env, fn ip_string: (Ip) -> CelString, name = "string")?;
    cel::add_member_overload!(env, fn family: (Ip) -> CelInt)?;
    cel::add_member_overload!(env, fn is_unspecified: (Ip) -> CelBool)?;
    cel::add_member_overload!(env, fn is_loopback: (Ip) -> CelBool)?;
    cel::add_member_overload!(env, fn is_link_local_multicast: (Ip) -> CelBool)?;
    cel::add_member_overload!(env, fn is_link_local_unicast: (Ip) -> CelBool)?;
    cel::add_member_overload!(env, fn is_global_unicast: (Ip) -> CelBool)?;
    cel::add_overload!(env, fn cidr: (CelString) -> Result<Cidr>)?;
    cel::add_overload!(env, fn is_cidr_string: (CelString) -> CelBool, name = "isCIDR")?;
    cel::add_overload!(env, fn cidr_string: (Cidr) -> CelString, name = "string")?;
    cel::add_member_overload!(env, fn contains_ip: (Cidr, Ip) -> CelBool, name = "containsIP")?;
    cel::add_member_overload!(env, fn contains_ip_string: (Cidr, CelString) -> Result<CelBool>,
        name = "containsIP")?;
    cel::add_member_overload!(env, fn contains_cidr: (Cidr, Cidr) -> CelBool,
        name = "containsCIDR")?;
    cel::add_member_overload!(env, fn contains_cidr_string: (Cidr, CelString) -> Result<CelBool>,
        name = "containsCIDR")?;
    cel::add_member_overload!(env, fn cidr_ip: (Cidr) -> Ip, name = "ip")?;
    cel::add_member_overload!(env, fn masked: (Cidr) -> Cidr)?;
    cel::add_member_overload!(env, fn prefix_length: (Cidr) -> CelInt)?;
    Ok(())
}

fn ip(s: &CelString<'_>) -> Result<Ip, ExecutionError> {
    parse_ip(s.inner())
        .map(Ip)
        .map_err(|e| ExecutionError::function_error("ip", e))
}

/// `netip.Addr.String()` is the one canonical form (RFC 5952 for IPv6), as Rust's `Display`.
fn is_canonical(s: &CelString<'_>) -> Result<CelBool, ExecutionError> {
    let addr = parse_ip(s.inner()).map_err(|e| ExecutionError::function_error("isCanonical", e))?;
    Ok(CelBool::from(addr.to_string() == s.inner()))
}

fn ip_string(ip: &Ip) -> CelString<'static> {
    CelString::from(ip.0.to_string())
}

fn family(ip: &Ip) -> CelInt {
    CelInt::from(if ip.0.is_ipv4() { 4 } else { 6 })
}

fn is_unspecified(ip: &Ip) -> CelBool {
    CelBool::from(ip.0.is_unspecified())
}

fn is_loopback(ip: &Ip) -> CelBool {
    CelBool::from(ip.0.is_loopback())
}

/// 224.0.0.0/24, or an IPv6 multicast address of link-local scope (`ff02::/16`, any flags).
fn is_link_local_multicast(ip: &Ip) -> CelBool {
    CelBool::from(match ip.0 {
        IpAddr::V4(a) => matches!(a.octets(), [224, 0, 0, _]),
        IpAddr::V6(a) => a.segments()[0] & 0xff0f == 0xff02,
    })
}

/// 169.254.0.0/16 or fe80::/10.
fn is_link_local_unicast(ip: &Ip) -> CelBool {
    CelBool::from(match ip.0 {
        IpAddr::V4(a) => a.is_link_local(),
        IpAddr::V6(a) => a.segments()[0] & 0xffc0 == 0xfe80,
    })
}

/// Go's `IsGlobalUnicast`: private and ULA addresses count.
fn is_global_unicast(ip: &Ip) -> CelBool {
    let link_local = is_link_local_unicast(ip).into_inner();
    CelBool::from(match ip.0 {
        IpAddr::V4(a) => {
            !a.is_unspecified()
                && !a.is_broadcast()
                && !a.is_loopback()
                && !a.is_multicast()
                && !link_local
        }
        IpAddr::V6(a) => {
            !a.is_unspecified() && !a.is_loopback() && !a.is_multicast() && !link_local
        }
    })
}

fn cidr(s: &CelString<'_>) -> Result<Cidr, ExecutionError> {
    parse_cidr(s.inner()).map_err(|e| ExecutionError::function_error("cidr", e))
}

fn cidr_string(c: &Cidr) -> CelString<'static> {
    CelString::from(format!("{}/{}", c.addr, c.bits))
}

fn contains_ip(c: &Cidr, ip: &Ip) -> CelBool {
    CelBool::from(c.contains(ip.0))
}

fn contains_ip_string(c: &Cidr, s: &CelString<'_>) -> Result<CelBool, ExecutionError> {
    let ip = parse_ip(s.inner()).map_err(|e| ExecutionError::function_error("containsIP", e))?;
    Ok(CelBool::from(c.contains(ip)))
}

/// The other network lies inside this one: `Overlaps` and a prefix at least as long.
fn contains_cidr(c: &Cidr, other: &Cidr) -> CelBool {
    CelBool::from(c.bits <= other.bits && c.contains(other.addr))
}

fn contains_cidr_string(c: &Cidr, s: &CelString<'_>) -> Result<CelBool, ExecutionError> {
    let other =
        parse_cidr(s.inner()).map_err(|e| ExecutionError::function_error("containsCIDR", e))?;
    Ok(contains_cidr(c, &other))
}

fn cidr_ip(c: &Cidr) -> Ip {
    Ip(c.addr)
}

fn masked(c: &Cidr) -> Cidr {
    Cidr {
        addr: mask(c.addr, c.bits),
        bits: c.bits,
    }
}

fn prefix_length(c: &Cidr) -> CelInt {
    CelInt::from(i64::from(c.bits))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_error, assert_true};

    #[test]
    fn ip_examples() {
        // ip.go's documented examples.
        assert_true(&[
            "isIP('127.0.0.1') && isIP('::1') && !isIP('127.0.0.256') && !isIP(':::1')",
            "!isIP('::ffff:1.2.3.4') && !isIP('fe80::1%eth0') && !isIP('10.0.0.01') && !isIP('1.1.1')",
            "ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::abcd') && !ip.isCanonical('2001:DB8::ABCD') && !ip.isCanonical('2001:db8::0:0:0:abcd')",
            "ip('127.0.0.1').family() == 4 && ip('::1').family() == 6",
            "ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified() && !ip('127.0.0.1').isUnspecified()",
            "ip('127.0.0.1').isLoopback() && ip('::1').isLoopback() && !ip('1.2.3.4').isLoopback()",
            "ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast() && !ip('fd00::1').isLinkLocalMulticast()",
            "ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() && !ip('192.168.0.1').isLinkLocalUnicast()",
            "ip('192.168.0.1').isGlobalUnicast() && ip('2001:db8::abcd').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()",
            "string(ip('127.0.0.1')) == '127.0.0.1' && string(ip('2001:DB8::0:abcd')) == '2001:db8::abcd'",
            "ip('127.0.0.1') == ip('127.0.0.1') && ip('::1') != ip('::2')",
        ]);
        assert_error(&[
            ("ip('1.2.3')", "parse error"),
            ("ip('::ffff:1.2.3.4')", "IPv4-mapped IPv6 address"),
            ("ip.isCanonical('bad')", "parse error"),
        ]);
    }

    #[test]
    fn cidr_examples() {
        // cidr.go's documented examples.
        assert_true(&[
            "isCIDR('192.168.0.0/16') && isCIDR('::1/128') && !isCIDR('192.168.0.0/33') && !isCIDR('10.0.0.0') && !isCIDR('10.0.0.0/08') && !isCIDR('::ffff:1.2.3.4/120')",
            "isCIDR('10.1.2.3/8')",
            "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && !cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))",
            "cidr('192.168.0.0/24').containsIP('192.168.0.1') && !cidr('192.168.0.0/24').containsIP('::1')",
            "cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24')) && !cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))",
            "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24') && !cidr('192.168.0.0/24').containsCIDR('192.168.0.0/16')",
            "cidr('192.168.0.1/24').ip() == ip('192.168.0.1') && string(cidr('192.168.0.1/24').ip()) == '192.168.0.1'",
            "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24') && string(cidr('::1/64').masked()) == '::/64'",
            "cidr('192.168.0.0/16').prefixLength() == 16 && cidr('::1/128').prefixLength() == 128",
            "cidr('0.0.0.0/0').containsIP('8.8.8.8') && string(cidr('2001:DB8::/32')) == '2001:db8::/32'",
        ]);
        assert_error(&[
            ("cidr('192.168.0.0/33')", "invalid prefix"),
            ("cidr('192.168.0.0/16').containsIP('x')", "parse error"),
        ]);
    }
}
