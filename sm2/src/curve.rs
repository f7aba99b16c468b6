//! The SM2 curve as an `elliptic-curve` [`Curve`](elliptic_curve::Curve) with `primeorder`
//! point types, so PKCS#8, SEC1 and other ecosystem code works. Parameters: GB/T 32918.5-2017
//! (recommended curve), also draft-shen-sm2-ecdsa-02 appendix D. Fixed-base and verification
//! multiplications are routed to this crate's own engine (`arith::mul`).

use crate::arith;
use elliptic_curve::{
    CurveArithmetic, PrimeCurveArithmetic,
    bigint::{Odd, U256},
    consts::U32,
    ff::PrimeField,
    hazmat::FieldArithmetic,
    sec1::{FromSec1Point, ToSec1Point},
};
use primeorder::{PrimeCurveParams, point_arithmetic};

mod field_element {
    //! `ff` field element modulo p (crypto-bigint Montgomery arithmetic via `primefield`).
    use super::MODULUS_HEX;
    use elliptic_curve::{
        bigint::U256,
        ff::PrimeField,
        subtle::{Choice, ConstantTimeEq, CtOption},
    };

    primefield::monty_field_params! {
        name: FieldParams,
        modulus: MODULUS_HEX,
        uint: U256,
        byte_order: primefield::ByteOrder::BigEndian,
        multiplicative_generator: 13,
        doc: "Montgomery parameters for the SM2 field prime p"
    }

    primefield::monty_field_element! {
        name: FieldElement,
        params: FieldParams,
        uint: U256,
        doc: "Element of the SM2 base field (integers modulo p)"
    }

    primefield::monty_field_arithmetic! {
        name: FieldElement,
        params: FieldParams,
        uint: U256
    }

    impl elliptic_curve::ops::BatchInvert for FieldElement {}
}

mod scalar_field {
    //! `ff` scalar modulo n (crypto-bigint Montgomery arithmetic via `primefield`).
    use super::{ORDER_HEX, Sm2};
    use elliptic_curve::{
        bigint::U256,
        ff::PrimeField,
        scalar::{FromUintUnchecked, IsHigh},
        subtle::{Choice, ConstantTimeEq, ConstantTimeGreater, CtOption},
    };

    primefield::monty_field_params! {
        name: ScalarParams,
        modulus: ORDER_HEX,
        uint: U256,
        byte_order: primefield::ByteOrder::BigEndian,
        multiplicative_generator: 3,
        doc: "Montgomery parameters for the SM2 group order n"
    }

    primefield::monty_field_element! {
        name: Scalar,
        params: ScalarParams,
        uint: U256,
        doc: "Element of the SM2 scalar field (integers modulo the group order n)"
    }

    primefield::monty_field_arithmetic! {
        name: Scalar,
        params: ScalarParams,
        uint: U256
    }

    primefield::monty_field_reduce! {
        name: Scalar,
        params: ScalarParams,
        uint: U256,
    }

    elliptic_curve::scalar_impls!(Sm2, Scalar);

    primeorder::wnaf::impl_wnaf_size_for_scalar!(Scalar);

    impl AsRef<Scalar> for Scalar {
        fn as_ref(&self) -> &Scalar {
            self
        }
    }

    impl FromUintUnchecked for Scalar {
        type Uint = U256;

        fn from_uint_unchecked(uint: Self::Uint) -> Self {
            Self::from_uint_unchecked(uint)
        }
    }

    impl IsHigh for Scalar {
        fn is_high(&self) -> Choice {
            const HALF: U256 = <Sm2 as elliptic_curve::Curve>::ORDER
                .as_ref()
                .shr_vartime(1);
            self.to_canonical().ct_gt(&HALF)
        }
    }
}

/// Order n of the SM2 group (GB/T 32918.5), hexadecimal.
const ORDER_HEX: &str = "fffffffeffffffffffffffffffffffff7203df6b21c6052b53bbf40939d54123";
/// Field prime p (GB/T 32918.5), hexadecimal.
const MODULUS_HEX: &str = "fffffffeffffffffffffffffffffffffffffffff00000000ffffffffffffffff";

/// The SM2 elliptic curve (GB/T 32918.5 recommended parameters), OID 1.2.156.10197.1.301.
#[derive(Copy, Clone, Debug, Default, Eq, PartialEq, PartialOrd, Ord)]
pub struct Sm2;

impl elliptic_curve::Curve for Sm2 {
    type FieldBytesSize = U32;
    type Uint = U256;
    const ORDER: Odd<U256> = Odd::<U256>::from_be_hex(ORDER_HEX);
}

impl elliptic_curve::PrimeCurve for Sm2 {}

impl elliptic_curve::point::PointCompression for Sm2 {
    /// SM2 points are usually sent uncompressed.
    const COMPRESS_POINTS: bool = false;
}

impl elliptic_curve::pkcs8::AssociatedOid for Sm2 {
    const OID: elliptic_curve::pkcs8::ObjectIdentifier =
        elliptic_curve::pkcs8::ObjectIdentifier::new_unwrap("1.2.156.10197.1.301");
}

pub use self::field_element::FieldElement;
pub use self::scalar_field::Scalar;

/// Affine point on the SM2 curve.
pub type AffinePoint = primeorder::AffinePoint<Sm2>;
/// Projective point on the SM2 curve.
pub type ProjectivePoint = primeorder::ProjectivePoint<Sm2>;

impl CurveArithmetic for Sm2 {
    type AffinePoint = AffinePoint;
    type ProjectivePoint = ProjectivePoint;
    type Scalar = Scalar;
}

impl FieldArithmetic for Sm2 {
    type FieldElement = FieldElement;
}

impl PrimeCurveArithmetic for Sm2 {
    type CurveGroup = ProjectivePoint;
}

impl PrimeCurveParams for Sm2 {
    type PointArithmetic = point_arithmetic::EquationAIsMinusThree;
    type Backend = Sm2Backend;

    /// a = -3 (mod p)
    const EQUATION_A: FieldElement = FieldElement::from_u64(3).neg();
    /// b (GB/T 32918.5)
    const EQUATION_B: FieldElement = FieldElement::from_hex_vartime(
        "28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93",
    );
    /// G (GB/T 32918.5)
    const GENERATOR: (FieldElement, FieldElement) = (
        FieldElement::from_hex_vartime(
            "32C4AE2C1F1981195F9904466A39C9948FE30BBFF2660BE1715A4589334C74C7",
        ),
        FieldElement::from_hex_vartime(
            "BC3736A2F4F6779C59BDCEE36B692153D0A9877CC62A474002DF32E52139F0A0",
        ),
    );
}

/// Routes `primeorder`'s generator multiplications to this crate's comb and Straus code.
#[derive(Clone, Copy, Debug)]
pub struct Sm2Backend;

impl primeorder::MulBackend<Sm2> for Sm2Backend {
    fn mul_by_generator(k: &Scalar) -> ProjectivePoint {
        let k = scalar_to_limbs(k);
        jacobian_to_projective(&arith::mul::mul_g(&k))
    }

    fn mul_by_generator_vartime(k: &Scalar) -> ProjectivePoint {
        Self::mul_by_generator(k)
    }

    fn mul_by_generator_and_mul_add_vartime(
        a: &Scalar,
        b_scalar: &Scalar,
        b_point: &ProjectivePoint,
    ) -> ProjectivePoint {
        match projective_to_affine(b_point) {
            Some(q) => jacobian_to_projective(&arith::mul::mul_g_add_vartime(
                &scalar_to_limbs(a),
                &scalar_to_limbs(b_scalar),
                &q,
            )),
            None => Self::mul_by_generator(a),
        }
    }
}

/// Canonical limbs of a scalar.
pub(crate) fn scalar_to_limbs(k: &Scalar) -> arith::limbs::Limbs {
    let bytes: [u8; 32] = k.to_repr().into();
    arith::limbs::from_be_bytes(&bytes)
}

/// Our Jacobian point as a `primeorder` point (one inversion; branches only on whether the
/// result is the identity).
pub(crate) fn jacobian_to_projective(p: &arith::point::Jacobian) -> ProjectivePoint {
    let (a, finite) = p.to_affine();
    if finite == 0 {
        return ProjectivePoint::IDENTITY;
    }
    let mut enc = [0u8; 65];
    enc[0] = 4;
    enc[1..33].copy_from_slice(&a.x.to_bytes());
    enc[33..].copy_from_slice(&a.y.to_bytes());
    elliptic_curve::sec1::Sec1Point::<Sm2>::from_bytes(enc)
        .ok()
        .and_then(|e| AffinePoint::from_sec1_point(&e).into_option())
        .map(ProjectivePoint::from)
        .unwrap_or(ProjectivePoint::IDENTITY)
}

/// A `primeorder` point as our affine point (`None` for the identity).
pub(crate) fn projective_to_affine(p: &ProjectivePoint) -> Option<arith::point::Affine> {
    affine_from_primeorder(&p.to_affine())
}

/// A `primeorder` affine point as ours (`None` for the identity).
pub(crate) fn affine_from_primeorder(p: &AffinePoint) -> Option<arith::point::Affine> {
    let enc = p.to_sec1_point(false);
    let bytes = enc.as_bytes();
    if bytes.len() != 65 {
        return None;
    }
    let mut x = [0u8; 32];
    let mut y = [0u8; 32];
    x.copy_from_slice(&bytes[1..33]);
    y.copy_from_slice(&bytes[33..]);
    Some(arith::point::Affine {
        x: arith::field::Fe::from_bytes(&x).0,
        y: arith::field::Fe::from_bytes(&y).0,
    })
}

/// Affine coordinates (big-endian x, y) of k·P for a public point P and a secret scalar k,
/// with this crate's constant-time variable-base multiplication. `None` if P or the result
/// is the identity.
pub(crate) fn mul_point_ct(p: &AffinePoint, k: &Scalar) -> Option<([u8; 32], [u8; 32])> {
    let q = affine_from_primeorder(p)?;
    let (a, finite) = arith::mul::mul_ct(&scalar_to_limbs(k), &q).to_affine();
    (finite != 0).then(|| (a.x.to_bytes(), a.y.to_bytes()))
}
