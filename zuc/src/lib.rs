//! ZUC-128/256 stream ciphers, 128-EEA3/EIA3 and the ZUC-256 MAC (work in progress).
#![no_std]
