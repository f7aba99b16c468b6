//! SM4 block cipher: work in progress.
#![no_std]
