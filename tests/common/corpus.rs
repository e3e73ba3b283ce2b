//! The `../shared/corpus/llvm-run/` case format, shared by the tests that run its cases
//! (`tests/corpus_run.rs`, `tests/profile_matrix.rs`): a buffer argument's element size and
//! bytes.

use serde_json::Value;

/// Bytes of one element of a buffer of type `t` (`u8` ... `f64`).
pub fn elem_size(t: &str) -> usize {
    match t {
        "u8" | "i8" => 1,
        "u16" | "i16" | "f16" => 2,
        "u32" | "i32" | "f32" => 4,
        _ => 8,
    }
}

/// A value of type `t` as little-endian bytes.
pub fn encode(t: &str, v: &Value) -> Vec<u8> {
    let bits: u64 = match t {
        "f32" => (v.as_f64().unwrap() as f32).to_bits() as u64,
        "f64" => v.as_f64().unwrap().to_bits(),
        _ => v.as_u64().or_else(|| v.as_i64().map(|i| i as u64)).unwrap(),
    };
    bits.to_le_bytes()[..elem_size(t)].to_vec()
}

/// The initial bytes of a case's buffer argument `a` (`data`, or `zeros` elements).
pub fn arg_bytes(a: &Value) -> Vec<u8> {
    let t = a["buffer"].as_str().unwrap();
    match a.get("data") {
        Some(d) => d
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|v| encode(t, v))
            .collect(),
        None => vec![0; a["zeros"].as_u64().unwrap() as usize * elem_size(t)],
    }
}
