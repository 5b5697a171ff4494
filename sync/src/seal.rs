//! Sealing a record's content under its key (XChaCha20-Poly1305).
//!
//! A sealed value is `nonce (24 bytes) | ciphertext and tag`. The record's
//! place (`memories/<id>`, …) is the associated data, so a sealed value
//! copied to another record does not open there.

use chacha20poly1305::{
    KeyInit, XChaCha20Poly1305, XNonce,
    aead::{Aead, Payload},
};
use rand::RngExt;

use crate::keys::Key;

/// Bytes of the nonce that leads a sealed value.
const NONCE: usize = 24;

/// Seals `plaintext` under `key`, bound to the record `place`.
pub(crate) fn seal(key: &Key, place: &str, plaintext: &[u8]) -> Vec<u8> {
    let cipher = XChaCha20Poly1305::new(&key.0.into());
    let nonce: [u8; NONCE] = rand::rng().random();
    let mut sealed = nonce.to_vec();
    // Encryption with a valid key and nonce cannot fail; an empty result
    // would only make the record unreadable, never leak it.
    let ciphertext = cipher
        .encrypt(&XNonce::from(nonce), Payload { msg: plaintext, aad: place.as_bytes() })
        .unwrap_or_default();
    sealed.extend_from_slice(&ciphertext);
    sealed
}

/// Opens a value sealed by [`seal`]; `None` when the key or place is wrong
/// or the bytes were altered.
pub(crate) fn open(key: &Key, place: &str, sealed: &[u8]) -> Option<Vec<u8>> {
    if sealed.len() < NONCE {
        return None;
    }
    let (nonce, ciphertext) = sealed.split_at(NONCE);
    let nonce: [u8; NONCE] = nonce.try_into().ok()?;
    let cipher = XChaCha20Poly1305::new(&key.0.into());
    cipher.decrypt(&XNonce::from(nonce), Payload { msg: ciphertext, aad: place.as_bytes() }).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_value_opens_with_its_key_and_place_only() {
        let key = Key::random();
        let sealed = seal(&key, "memories/a", b"the Stripe key is sk_live_x");
        assert!(!sealed.windows(6).any(|window| window == b"Stripe"));
        assert_eq!(open(&key, "memories/a", &sealed).unwrap(), b"the Stripe key is sk_live_x");
        assert!(open(&Key::random(), "memories/a", &sealed).is_none());
        assert!(open(&key, "memories/b", &sealed).is_none());
        let mut altered = sealed.clone();
        altered[30] ^= 1;
        assert!(open(&key, "memories/a", &altered).is_none());
        assert!(open(&key, "memories/a", &sealed[..10]).is_none());
    }

    #[test]
    fn the_same_text_sealed_twice_differs() {
        let key = Key::random();
        assert_ne!(seal(&key, "p", b"same"), seal(&key, "p", b"same"));
    }
}
