//! The SM2 curve as an `elliptic-curve` [`Curve`](elliptic_curve::Curve) with `primeorder`
//! point types, so PKCS#8, SEC1 and other ecosystem code works. Parameters: GB/T 32918.5-2017
//! (recommended curve), also draft-shen-sm2-ecdsa-02 appendix D. The field and scalar types
//! are this crate's own (`arith::field`, `arith::scalar`), so the generic point code runs on
//! the same arithmetic; fixed-base and verification multiplications are routed to this
//! crate's comb and Straus code (`arith::mul`).

use crate::arith;
use elliptic_curve::{
    CurveArithmetic, PrimeCurveArithmetic,
    bigint::{Odd, U256},
    consts::U32,
    ff::PrimeField,
    hazmat::FieldArithmetic,
    point::AffineCoordinates,
};
use primeorder::{PrimeCurveParams, point_arithmetic};

use crate::arith::scalar::ORDER_HEX;

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

pub use crate::arith::field::FieldElement;
pub use crate::arith::scalar::Scalar;

impl elliptic_curve::ops::BatchInvert for FieldElement {}

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
    const EQUATION_A: FieldElement = FieldElement::from_hex_vartime(
        "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFC",
    );
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
    k.to_canonical_limbs()
}

/// Our Jacobian point as a `primeorder` point (one inversion; branches only on whether the
/// result is the identity).
pub(crate) fn jacobian_to_projective(p: &arith::point::Jacobian) -> ProjectivePoint {
    let (a, finite) = p.to_affine();
    if finite == 0 {
        return ProjectivePoint::IDENTITY;
    }
    ProjectivePoint::from(affine_to_primeorder(&a))
}

/// Our affine point as a `primeorder` one. `primeorder` keeps its coordinates private, so
/// they pass as canonical bytes (two conversions out of and into the Montgomery form each)
/// and its constructor checks the curve equation, which a point of ours always satisfies.
pub(crate) fn affine_to_primeorder(a: &arith::point::Affine) -> AffinePoint {
    AffinePoint::from_coordinates(&a.x.to_bytes(), &a.y.to_bytes())
        .into_option()
        .unwrap_or(AffinePoint::IDENTITY)
}

/// A `primeorder` point as our affine point (`None` for the identity).
pub(crate) fn projective_to_affine(p: &ProjectivePoint) -> Option<arith::point::Affine> {
    affine_from_primeorder(&p.to_affine())
}

/// A `primeorder` affine point as ours (`None` for the identity).
pub(crate) fn affine_from_primeorder(p: &AffinePoint) -> Option<arith::point::Affine> {
    if bool::from(p.is_identity()) {
        return None;
    }
    Some(arith::point::Affine {
        x: FieldElement::from_repr(p.x()).into_option()?,
        y: FieldElement::from_repr(p.y()).into_option()?,
    })
}

/// Affine coordinates (big-endian x, y) of k·P for a public point P and a secret scalar k,
/// with this crate's constant-time variable-base multiplication. `None` if P or the result
/// is the identity.
pub(crate) fn mul_point_ct(p: &AffinePoint, k: &Scalar) -> Option<([u8; 32], [u8; 32])> {
    let q = affine_from_primeorder(p)?;
    let (a, finite) = arith::mul::mul_ct(&scalar_to_limbs(k), &q).to_affine();
    (finite != 0).then(|| (a.x.to_be_bytes(), a.y.to_be_bytes()))
}
