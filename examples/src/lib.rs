//! Runnable examples of the shangmi crates (`cargo run --example sm4_gcm`, …).
//!
//! This crate has no code of its own: its documentation is the repository's README, so
//! `cargo test -p shangmi-examples --doc` runs the README's Quick start.
#![doc = include_str!("../../README.md")]
#![no_std]
