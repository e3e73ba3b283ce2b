//! What each type qualifier value means: its width, lanes, and whether it
//! is a float, signed or unsigned. Written by hand with exhaustive `match`es
//! (no `_` arm), so a type value added to the catalog (and so to the
//! generated [`Type`]) does not compile until it is classified here.

use super::view::Type;

/// The float formats of the type qualifiers (spec 03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// `.hf`: IEEE binary16.
    Half,
    /// `.bf`: bfloat16.
    BFloat,
    /// `.f`: IEEE binary32.
    Single,
    /// `.df`: IEEE binary64.
    Double,
}

impl Type {
    /// Bits of one element (the whole value for scalars).
    pub fn element_bits(self) -> u16 {
        use Type::*;
        match self {
            B8 | U8 | S8 | B8x4 => 8,
            B16 | U16 | S16 | Hf | Bf | B16x2 | Hfx2 | Bfx2 | U16x2 | S16x2 => 16,
            B32 | U32 | S32 | F => 32,
            B64 | U64 | S64 | Df => 64,
            B128 => 128,
        }
    }
    /// Elements of a packed type; 1 for a scalar.
    pub fn lanes(self) -> u8 {
        use Type::*;
        match self {
            B16x2 | Hfx2 | Bfx2 | U16x2 | S16x2 => 2,
            B8x4 => 4,
            B8 | U8 | S8 | B16 | U16 | S16 | Hf | Bf | B32 | U32 | S32 | F | B64 | U64 | S64
            | Df | B128 => 1,
        }
    }
    /// Bits of the whole value (all lanes).
    pub fn bits(self) -> u16 {
        self.element_bits() * self.lanes() as u16
    }
    /// The float format of one element, for a float type.
    pub fn float(self) -> Option<FloatKind> {
        use Type::*;
        match self {
            Hf | Hfx2 => Some(FloatKind::Half),
            Bf | Bfx2 => Some(FloatKind::BFloat),
            F => Some(FloatKind::Single),
            Df => Some(FloatKind::Double),
            B8 | U8 | S8 | B8x4 | B16 | U16 | S16 | B16x2 | U16x2 | S16x2 | B32 | U32 | S32
            | B64 | U64 | S64 | B128 => None,
        }
    }
    /// `Some(true)` for `.sN`, `Some(false)` for `.uN`, `None` for untyped
    /// bits and floats.
    pub fn signed(self) -> Option<bool> {
        use Type::*;
        match self {
            S8 | S16 | S32 | S64 | S16x2 => Some(true),
            U8 | U16 | U32 | U64 | U16x2 => Some(false),
            B8 | B8x4 | B16 | B16x2 | B32 | B64 | B128 | Hf | Hfx2 | Bf | Bfx2 | F | Df => None,
        }
    }
    pub fn is_float(self) -> bool {
        self.float().is_some()
    }
    /// The type of one element of a packed type; the type itself for a
    /// scalar.
    pub fn element(self) -> Type {
        use Type::*;
        match self {
            B16x2 => B16,
            Hfx2 => Hf,
            Bfx2 => Bf,
            U16x2 => U16,
            S16x2 => S16,
            B8x4 => B8,
            B8 | U8 | S8 | B16 | U16 | S16 | Hf | Bf | B32 | U32 | S32 | F | B64 | U64 | S64
            | Df | B128 => self,
        }
    }
}

impl FloatKind {
    /// Bits of one value.
    pub fn bits(self) -> u16 {
        match self {
            FloatKind::Half | FloatKind::BFloat => 16,
            FloatKind::Single => 32,
            FloatKind::Double => 64,
        }
    }
    /// Bits of the fraction (the stored significand, without the hidden bit).
    pub fn fraction_bits(self) -> u32 {
        match self {
            FloatKind::Half => 10,
            FloatKind::BFloat => 7,
            FloatKind::Single => 23,
            FloatKind::Double => 52,
        }
    }
    /// The exponent field, all ones: the encoding of +∞.
    pub fn exponent_mask(self) -> u64 {
        match self {
            FloatKind::Half => 0x7C00,
            FloatKind::BFloat => 0x7F80,
            FloatKind::Single => 0x7F80_0000,
            FloatKind::Double => 0x7FF0_0000_0000_0000,
        }
    }
    /// The quiet bit of a NaN (the fraction's top bit).
    pub fn quiet_bit(self) -> u64 {
        1 << (self.fraction_bits() - 1)
    }
    /// The sign bit.
    pub fn sign_bit(self) -> u64 {
        1 << (self.bits() - 1)
    }
    /// The scalar type of this format.
    pub fn scalar(self) -> Type {
        match self {
            FloatKind::Half => Type::Hf,
            FloatKind::BFloat => Type::Bf,
            FloatKind::Single => Type::F,
            FloatKind::Double => Type::Df,
        }
    }
}
