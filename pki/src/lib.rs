//! SM2 certificates, requests, chain verification, GM/T 0010 CMS, SM2 key envelopes and PKCS#12 (work in progress).
#![no_std]
