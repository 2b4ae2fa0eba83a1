//! The in-memory layout of a texture or surface object: [`Descriptor::WORDS`] little-endian
//! 64-bit words at the object's handle address, written by the runtime
//! ([`Descriptor::to_words`]) and read by the interpreter ([`Descriptor::from_words`]).
//!
//! | word | contents |
//! |---|---|
//! | 0 | magic: [`TEXTURE_MAGIC`] or [`SURFACE_MAGIC`] |
//! | 1 | device address of texel (0, 0, 0) of layer 0 |
//! | 2, 3, 4 | width, height, depth in elements (1 for unused dimensions) |
//! | 5 | layers (0: not layered) |
//! | 6, 7 | row pitch and slice (depth or layer) pitch in bytes |
//! | 8 | channels (bits 0–7), bits per channel (8–15), [`ChannelKind`] (16–23), [`ResourceKind`] (24–31), dimensions (32–39) |
//! | 9 | filter linear (bit 0), normalised-float read (bit 1), normalised coordinates (bit 2), linear mipmap filter (bit 3), cubemap (bit 4), [`AddressMode`]s of x, y, z (bits 8–15, 16–23, 24–31) |
//! | 10, 11 | border colour, four f32 |
//! | 12 | mipmap levels (1: not mipmapped) |
//! | 13 | level-of-detail bias (bits 0–31) and smallest level clamp (32–63), f32 |
//! | 14 | largest level clamp, f32 |
//!
//! A mipmapped array's levels lie one after another from word 1's address, each tightly
//! pitched ([`super::mipmap`]).

/// Word 0 of a texture object.
pub const TEXTURE_MAGIC: u64 = 0x4348_5654_4558_0001;
/// Word 0 of a surface object.
pub const SURFACE_MAGIC: u64 = 0x4348_5653_5246_0001;

/// Whether the object is a texture or a surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    /// Sampled by `tex`, `tld4`; queried by `txq`.
    Texture,
    /// Read and written by `suld`, `sust`; queried by `suq`.
    Surface,
}

/// How a channel's bits are read (CUDA's `cudaChannelFormatKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelKind {
    /// Two's complement integers.
    Signed = 0,
    /// Unsigned integers.
    Unsigned = 1,
    /// IEEE floats (16 or 32 bits).
    Float = 2,
}

/// What memory the object reads (CUDA's `cudaResourceType`; a mipmapped array is an array
/// of more than one level).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    /// A CUDA array (1D, 2D, 3D, layered, cubemap; mipmapped or not).
    Array = 0,
    /// Linear memory (`tex1Dfetch`).
    Linear = 1,
    /// Pitched 2D linear memory.
    Pitch2D = 2,
}

/// An address mode (CUDA's `cudaTextureAddressMode`, same numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressMode {
    /// Repeat (normalised coordinates only; clamp otherwise).
    Wrap = 0,
    /// Clamp to the edge.
    Clamp = 1,
    /// Mirror at every edge (normalised coordinates only; clamp otherwise).
    Mirror = 2,
    /// Outside the extent, the border colour.
    Border = 3,
}

impl AddressMode {
    /// The mode numbered `n` (CUDA's numbering), if any.
    pub fn from_index(n: u64) -> Option<AddressMode> {
        Some(match n {
            0 => AddressMode::Wrap,
            1 => AddressMode::Clamp,
            2 => AddressMode::Mirror,
            3 => AddressMode::Border,
            _ => return None,
        })
    }
}

/// A texture or surface object as the interpreter sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Descriptor {
    /// Texture or surface.
    pub kind: ObjectKind,
    /// Device address of the first texel.
    pub base: u64,
    /// Width, height, depth in elements (1 for unused dimensions).
    pub extent: [u64; 3],
    /// Layers of a layered array (0 if not layered).
    pub layers: u64,
    /// Bytes from one row to the next.
    pub row_pitch: u64,
    /// Bytes from one depth slice (or layer) to the next.
    pub slice_pitch: u64,
    /// Channels per element (1, 2 or 4).
    pub channels: u8,
    /// Bits per channel (8, 16 or 32).
    pub bits: u8,
    /// How channels are read.
    pub channel_kind: ChannelKind,
    /// What memory the object reads.
    pub resource: ResourceKind,
    /// Dimensions of the resource (1, 2 or 3).
    pub dims: u8,
    /// Linear (true) or point filtering.
    pub linear_filter: bool,
    /// Integer texels read as floats in [0, 1] (unsigned) or [-1, 1] (signed).
    pub normalized_read: bool,
    /// Coordinates in [0, 1) rather than texels.
    pub normalized_coords: bool,
    /// Address modes of x, y and z.
    pub address: [AddressMode; 3],
    /// Border colour (read outside the extent in border mode).
    pub border: [f32; 4],
    /// Mipmap levels (1 for an array that is not mipmapped).
    pub levels: u32,
    /// A cubemap: layers are faces, six per cube (`tex.cube`, `tex.acube`).
    pub cubemap: bool,
    /// Blend the two nearest levels (true) or read the nearest one.
    pub mipmap_linear: bool,
    /// Added to every level of detail.
    pub lod_bias: f32,
    /// The smallest and largest level of detail read (after the bias).
    pub lod_clamp: [f32; 2],
}

impl Descriptor {
    /// Words the descriptor occupies in device memory.
    pub const WORDS: usize = 16;

    /// Bytes of one element.
    pub fn element_bytes(&self) -> u64 {
        u64::from(self.channels) * u64::from(self.bits) / 8
    }

    /// The descriptor's words.
    pub fn to_words(&self) -> [u64; Self::WORDS] {
        let mut w = [0u64; Self::WORDS];
        w[0] = match self.kind {
            ObjectKind::Texture => TEXTURE_MAGIC,
            ObjectKind::Surface => SURFACE_MAGIC,
        };
        w[1] = self.base;
        w[2..5].copy_from_slice(&self.extent);
        w[5] = self.layers;
        w[6] = self.row_pitch;
        w[7] = self.slice_pitch;
        w[8] = u64::from(self.channels)
            | u64::from(self.bits) << 8
            | (self.channel_kind as u64) << 16
            | (self.resource as u64) << 24
            | u64::from(self.dims) << 32;
        w[9] = u64::from(self.linear_filter)
            | u64::from(self.normalized_read) << 1
            | u64::from(self.normalized_coords) << 2
            | u64::from(self.mipmap_linear) << 3
            | u64::from(self.cubemap) << 4
            | (self.address[0] as u64) << 8
            | (self.address[1] as u64) << 16
            | (self.address[2] as u64) << 24;
        let b = self.border.map(f32::to_bits);
        w[10] = u64::from(b[0]) | u64::from(b[1]) << 32;
        w[11] = u64::from(b[2]) | u64::from(b[3]) << 32;
        w[12] = u64::from(self.levels);
        w[13] = u64::from(self.lod_bias.to_bits()) | u64::from(self.lod_clamp[0].to_bits()) << 32;
        w[14] = u64::from(self.lod_clamp[1].to_bits());
        w
    }

    /// Reads a descriptor from its words; `None` if they are not one (a handle that names no
    /// object).
    pub fn from_words(w: &[u64; Self::WORDS]) -> Option<Descriptor> {
        let kind = match w[0] {
            TEXTURE_MAGIC => ObjectKind::Texture,
            SURFACE_MAGIC => ObjectKind::Surface,
            _ => return None,
        };
        let byte = |word: u64, at: u32| (word >> at) & 0xff;
        let channel_kind = match byte(w[8], 16) {
            0 => ChannelKind::Signed,
            1 => ChannelKind::Unsigned,
            2 => ChannelKind::Float,
            _ => return None,
        };
        let resource = match byte(w[8], 24) {
            0 => ResourceKind::Array,
            1 => ResourceKind::Linear,
            2 => ResourceKind::Pitch2D,
            _ => return None,
        };
        let mode = |at| AddressMode::from_index(byte(w[9], at));
        let f = |word: u64, at: u32| f32::from_bits((word >> at) as u32);
        let d = Descriptor {
            kind,
            base: w[1],
            extent: [w[2], w[3], w[4]],
            layers: w[5],
            row_pitch: w[6],
            slice_pitch: w[7],
            channels: byte(w[8], 0) as u8,
            bits: byte(w[8], 8) as u8,
            channel_kind,
            resource,
            dims: byte(w[8], 32) as u8,
            linear_filter: w[9] & 1 != 0,
            normalized_read: w[9] & 2 != 0,
            normalized_coords: w[9] & 4 != 0,
            address: [mode(8)?, mode(16)?, mode(24)?],
            border: [f(w[10], 0), f(w[10], 32), f(w[11], 0), f(w[11], 32)],
            levels: u32::try_from(w[12]).ok()?,
            cubemap: w[9] & 16 != 0,
            mipmap_linear: w[9] & 8 != 0,
            lod_bias: f(w[13], 0),
            lod_clamp: [f(w[13], 32), f(w[14], 0)],
        };
        let valid = matches!(d.channels, 1 | 2 | 4)
            && matches!(d.bits, 8 | 16 | 32)
            && (1..=3).contains(&d.dims)
            && d.extent.iter().all(|&e| e >= 1)
            && (1..=super::mipmap::MAX_LEVELS).contains(&d.levels);
        valid.then_some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        let d = Descriptor {
            kind: ObjectKind::Texture,
            base: 0x7f00_0000_1000,
            extent: [64, 32, 1],
            layers: 3,
            row_pitch: 256,
            slice_pitch: 8192,
            channels: 4,
            bits: 8,
            channel_kind: ChannelKind::Unsigned,
            resource: ResourceKind::Array,
            dims: 2,
            linear_filter: true,
            normalized_read: true,
            normalized_coords: false,
            address: [AddressMode::Wrap, AddressMode::Border, AddressMode::Mirror],
            border: [0.5, -1.0, 0.0, 2.0],
            levels: 5,
            cubemap: true,
            mipmap_linear: true,
            lod_bias: 0.25,
            lod_clamp: [0.5, 3.0],
        };
        assert_eq!(Descriptor::from_words(&d.to_words()), Some(d));
        assert_eq!(Descriptor::from_words(&[0; Descriptor::WORDS]), None);
    }
}
