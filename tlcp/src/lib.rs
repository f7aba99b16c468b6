//! TLCP (GB/T 38636-2020) client and server with dual SM2 certificates (work in progress).
#![no_std]
