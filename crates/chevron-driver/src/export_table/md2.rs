//! MD2 (RFC 1319) and HMAC over it (RFC 2104 with MD2's 16-byte block): the keyed hash that
//! the runtime's integrity check expects from the driver ([`super::integrity`]).
//!
//! No maintained crate was reachable from the build's registry mirror; MD2 is a few lines and
//! is checked here against RFC 1319's test vectors.

/// MD2's substitution table ("pi digits"), RFC 1319 section 3.2.
const PI_SUBST: [u8; 256] = [
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19, 98, 167, 5, 243, 192, 199,
    115, 140, 152, 147, 43, 217, 188, 76, 130, 202, 30, 155, 87, 60, 253, 212, 224, 22, 103, 66,
    111, 24, 138, 23, 229, 18, 190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47,
    238, 122, 169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33, 128, 127, 93,
    154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3, 255, 25, 48, 179, 72, 165, 181, 209,
    215, 94, 146, 42, 172, 86, 170, 198, 79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226,
    156, 116, 4, 241, 69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2, 27,
    96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15, 85, 71, 163, 35, 221, 81,
    175, 58, 195, 92, 249, 206, 186, 197, 234, 38, 44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205,
    244, 65, 129, 77, 82, 106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57, 242, 239, 183, 14,
    102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10, 49, 68, 80, 180, 143, 237, 31, 26,
    219, 153, 141, 51, 159, 17, 131, 20,
];

/// An MD2 computation in progress.
#[derive(Clone, Default)]
pub struct Md2 {
    state: [u8; 16],
    checksum: [u8; 16],
    pending: Vec<u8>,
}

impl Md2 {
    /// Feeds `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.pending.extend_from_slice(data);
        let whole = self.pending.len() / 16 * 16;
        let blocks: Vec<u8> = self.pending.drain(..whole).collect();
        for block in blocks.chunks_exact(16) {
            self.compress(block.try_into().expect("16-byte chunk"));
        }
    }

    fn compress(&mut self, block: &[u8; 16]) {
        let mut x = [0u8; 48];
        x[..16].copy_from_slice(&self.state);
        x[16..32].copy_from_slice(block);
        for j in 0..16 {
            x[32 + j] = x[j] ^ block[j];
        }
        let mut t = 0u8;
        for round in 0..18u8 {
            for byte in x.iter_mut() {
                *byte ^= PI_SUBST[usize::from(t)];
                t = *byte;
            }
            t = t.wrapping_add(round);
        }
        self.state.copy_from_slice(&x[..16]);
        let mut last = self.checksum[15];
        for (sum, &byte) in self.checksum.iter_mut().zip(block) {
            *sum ^= PI_SUBST[usize::from(byte ^ last)];
            last = *sum;
        }
    }

    /// The digest: padding, then the checksum as a last block.
    pub fn finish(mut self) -> [u8; 16] {
        let pad = 16 - self.pending.len() % 16;
        self.update(&vec![pad as u8; pad]);
        let checksum = self.checksum;
        self.compress(&checksum);
        self.state
    }
}

/// HMAC-MD2 of `message` under a 16-byte `key` (one MD2 block, so used as it is).
pub fn hmac(key: &[u8; 16], message: &[u8]) -> [u8; 16] {
    let mut inner = Md2::default();
    inner.update(&key.map(|b| b ^ 0x36));
    inner.update(message);
    let inner = inner.finish();
    let mut outer = Md2::default();
    outer.update(&key.map(|b| b ^ 0x5c));
    outer.update(&inner);
    outer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(digest: [u8; 16]) -> String {
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn md2(text: &str) -> String {
        let mut md = Md2::default();
        // Fed in two pieces, to cover a block split across updates.
        let (a, b) = text.split_at(text.len() / 3);
        md.update(a.as_bytes());
        md.update(b.as_bytes());
        hex(md.finish())
    }

    #[test]
    fn rfc_1319_test_suite() {
        assert_eq!(md2(""), "8350e5a3e24c153df2275c9f80692773");
        assert_eq!(md2("a"), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
        assert_eq!(md2("abc"), "da853b0d3f88d99b30283a69e6ded6bb");
        assert_eq!(md2("message digest"), "ab4f496bfb2a530b219ff33031fe06b0");
        assert_eq!(
            md2("abcdefghijklmnopqrstuvwxyz"),
            "4e8ddff3650292ab5a4108c3aa47940b"
        );
        assert_eq!(
            md2("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "d5976f79d83d3a0dc9806c3c66f3efd8"
        );
    }

    #[test]
    fn hmac_differs_from_the_bare_hash_and_depends_on_the_key() {
        let a = hmac(&[1; 16], b"x");
        assert_ne!(a, hmac(&[2; 16], b"x"));
        assert_ne!(hex(a), md2("x"));
        assert_eq!(a, hmac(&[1; 16], b"x"));
    }
}
