//! TLS set-up: reqwest is built with rustls but without a bundled crypto provider (the
//! default, aws-lc, needs a long C build); ring is installed here instead.

use std::sync::Once;

/// Installs ring as rustls' process-wide crypto provider; safe to call many times.
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Err only means another provider was installed first, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
