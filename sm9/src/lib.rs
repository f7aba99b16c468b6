//! SM9 identity-based signatures, encryption and key exchange (GM/T 0044, GB/T 38635) (work in progress).
#![no_std]
