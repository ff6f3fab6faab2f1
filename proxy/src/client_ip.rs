//! The client's real address behind reverse proxies, trusted only when the operator says so.
//!
//! Without `--trusted-proxies`, forwarding headers are ignored (anyone can send them) and the peer
//! address is the client. With it, and only when the peer is one of the trusted proxies, the
//! `Forwarded` header (RFC 7239, preferred) or else `X-Forwarded-For` is read from the right: each
//! trusted hop is skipped and the first untrusted address is the client. Hand-written because the
//! rule is a dozen lines and the header grammar needed is small; CIDR parsing is `ipnet`'s.

use std::net::IpAddr;

use axum::http::HeaderMap;
use ipnet::IpNet;

/// The operator's trusted reverse proxies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parses `CIDR,CIDR,...` (a bare address counts as /32 or /128).
    pub fn parse(list: &[String]) -> Result<Self, String> {
        list.iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<IpNet>()
                    .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("--trusted-proxies: {s:?} is not an address or CIDR"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
    }

    /// Whether none are configured.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|n| n.contains(&ip))
    }

    /// The client address for a request from `peer` with `headers`.
    pub fn client_ip(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = canonical(peer);
        if !self.contains(peer) {
            return peer;
        }
        let hops = forwarded_for(headers).unwrap_or_else(|| x_forwarded_for(headers));
        let mut client = peer;
        for hop in hops.into_iter().rev() {
            match hop {
                Some(ip) => {
                    client = canonical(ip);
                    if !self.contains(client) {
                        return client;
                    }
                }
                // An unparsable hop (obfuscated or "unknown"): stop at the last trusted address.
                None => return client,
            }
        }
        client
    }
}

/// IPv4-mapped IPv6 addresses as IPv4, so `::ffff:10.0.0.1` matches `10.0.0.0/8`.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The `for=` values of every `Forwarded` header, in order; `None` without the header.
fn forwarded_for(headers: &HeaderMap) -> Option<Vec<Option<IpAddr>>> {
    let values: Vec<&str> = headers
        .get_all("forwarded")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    if values.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for element in values.iter().flat_map(|v| v.split(',')) {
        let for_value = element.split(';').find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            k.trim().eq_ignore_ascii_case("for").then(|| v.trim())
        });
        if let Some(v) = for_value {
            out.push(parse_node(v.trim_matches('"')));
        }
    }
    Some(out)
}

/// `[2001:db8::1]:4711`, `192.0.2.1:80`, `192.0.2.1` or `2001:db8::1`.
fn parse_node(v: &str) -> Option<IpAddr> {
    if let Some(rest) = v.strip_prefix('[') {
        return rest.split(']').next()?.parse().ok();
    }
    v.parse()
        .ok()
        .or_else(|| v.rsplit_once(':')?.0.parse().ok())
}

fn x_forwarded_for(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|s| parse_node(s.trim()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        m
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn untrusted_peer_headers_are_ignored() {
        let t = TrustedProxies::default();
        let hdr = h(&[("x-forwarded-for", "1.2.3.4")]);
        assert_eq!(t.client_ip(ip("10.0.0.5"), &hdr), ip("10.0.0.5"));
        let t = TrustedProxies::parse(&["10.0.0.0/8".into()]).unwrap();
        assert_eq!(t.client_ip(ip("192.0.2.9"), &hdr), ip("192.0.2.9"));
    }

    #[test]
    fn read_from_the_right_skipping_trusted_hops() {
        let t = TrustedProxies::parse(&["10.0.0.0/8".into(), "127.0.0.1".into()]).unwrap();
        // The client forged the leftmost entry; the rightmost untrusted one is real.
        let hdr = h(&[("x-forwarded-for", "6.6.6.6, 203.0.113.7, 10.1.1.1")]);
        assert_eq!(t.client_ip(ip("10.0.0.5"), &hdr), ip("203.0.113.7"));
        let hdr = h(&[(
            "forwarded",
            "for=6.6.6.6, for=\"[2001:db8::7]:443\";proto=https, for=10.2.2.2",
        )]);
        assert_eq!(t.client_ip(ip("127.0.0.1"), &hdr), ip("2001:db8::7"));
        // Forwarded wins over X-Forwarded-For.
        let hdr = h(&[
            ("forwarded", "for=198.51.100.1"),
            ("x-forwarded-for", "6.6.6.6"),
        ]);
        assert_eq!(t.client_ip(ip("10.0.0.5"), &hdr), ip("198.51.100.1"));
        // No header: the proxy itself.
        assert_eq!(t.client_ip(ip("10.0.0.5"), &h(&[])), ip("10.0.0.5"));
        // IPv4-mapped peer.
        let hdr = h(&[("x-forwarded-for", "203.0.113.8")]);
        assert_eq!(t.client_ip(ip("::ffff:10.0.0.5"), &hdr), ip("203.0.113.8"));
    }

    #[test]
    fn bad_cidr_is_an_error() {
        assert!(TrustedProxies::parse(&["10.0.0.0/33".into()]).is_err());
        assert!(TrustedProxies::parse(&["nope".into()]).is_err());
    }
}
