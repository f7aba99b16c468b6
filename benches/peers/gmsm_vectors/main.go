// Writes outputs of emmansun/gmsm v0.44.0 (through its public API) for seeded random
// inputs, for shangmi-sm4-modes' and shangmi-sm9's differential tests, which read the
// committed output and need no Go:
//
//	go run ./gmsm_vectors modes > ../../sm4-modes/tests/data/gmsm_17964_modes.txt
//	go run ./gmsm_vectors macs  > ../../sm4-modes/tests/data/gmsm_15852_macs.txt
//	go run ./gmsm_vectors sm9   > ../../sm9/tests/data/gmsm_sm9.txt (see sm9.go)
//
// modes: "mode key iv-or-hashkey tweak plaintext ciphertext" (BC, OFBNLF, HCTR).
// macs:  "algorithm padding key1 key2 message tag", hex, "-" for an empty field.
package main

import (
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"

	"github.com/emmansun/gmsm/cbcmac"
	smcipher "github.com/emmansun/gmsm/cipher"
	"github.com/emmansun/gmsm/padding"
	"github.com/emmansun/gmsm/sm4"
)

func h(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	return hex.EncodeToString(b)
}

func bytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	r.Read(b)
	return b
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func modes(r *rand.Rand) {
	fmt.Println("# emmansun/gmsm v0.44.0 cipher.NewBCEncrypter / NewOFBNLFEncrypter / NewHCTR over sm4, seeded random inputs")
	for i := 0; i < 24; i++ {
		key, iv := bytes(r, 16), bytes(r, 16)
		pt := bytes(r, 16*(1+r.Intn(40)))
		ct := make([]byte, len(pt))
		smcipher.NewBCEncrypter(must(sm4.NewCipher(key)), iv).CryptBlocks(ct, pt)
		fmt.Println("bc", h(key), h(iv), "-", h(pt), h(ct))
	}
	for i := 0; i < 24; i++ {
		key, iv := bytes(r, 16), bytes(r, 16)
		pt := bytes(r, 16*(1+r.Intn(40)))
		ct := make([]byte, len(pt))
		must(smcipher.NewOFBNLFEncrypter(sm4.NewCipher, key, iv)).CryptBlocks(ct, pt)
		fmt.Println("ofbnlf", h(key), h(iv), "-", h(pt), h(ct))
	}
	for i := 0; i < 40; i++ {
		key, hk, tw := bytes(r, 16), bytes(r, 16), bytes(r, 16)
		n := 16 + r.Intn(500)
		if i < 16 {
			n = 16 + i
		}
		pt := bytes(r, n)
		ct := make([]byte, n)
		must(smcipher.NewHCTR(must(sm4.NewCipher(key)), tw, hk)).EncryptBytes(ct, pt)
		fmt.Println("hctr", h(key), h(hk), h(tw), h(pt), h(ct))
	}
}

func macs(r *rand.Rand) {
	fmt.Println("# emmansun/gmsm v0.44.0 package cbcmac over sm4, seeded random inputs; padding 1 = padding.NewZeroPadding (non-empty messages only), 2/3 = NewISO9797M2Padding/M3")
	pads := map[int]padding.NewPaddingFunc{1: padding.NewZeroPadding, 2: padding.NewISO9797M2Padding, 3: padding.NewISO9797M3Padding}
	for i := 0; i < 180; i++ {
		k1, k2 := bytes(r, 16), bytes(r, 16)
		n := r.Intn(100)
		if i%5 == 0 {
			n = 16 * r.Intn(5)
		}
		msg := bytes(r, n)
		alg := []int{1, 2, 3, 4, 6}[i%5]
		p := 1 + (i/5)%3
		if p == 1 && n == 0 {
			p = 2
		}
		var tag []byte
		switch alg {
		case 1:
			tag = cbcmac.NewCBCMACWithPadding(must(sm4.NewCipher(k1)), 16, pads[p]).MAC(msg)
			k2 = nil
		case 2:
			tag = cbcmac.NewEMACWithPadding(sm4.NewCipher, k1, k2, 16, pads[p]).MAC(msg)
		case 3:
			tag = cbcmac.NewANSIRetailMACWithPadding(sm4.NewCipher, k1, k2, 16, pads[p]).MAC(msg)
		case 4:
			tag = cbcmac.NewMACDESWithPadding(sm4.NewCipher, k1, k2, 16, pads[p]).MAC(msg)
		case 6:
			tag = cbcmac.NewLMACWithPadding(sm4.NewCipher, k1, 16, pads[p]).MAC(msg)
			k2 = nil
		}
		fmt.Println(alg, p, h(k1), h(k2), h(msg), h(tag))
	}
	for i := 0; i < 90; i++ {
		k := bytes(r, 16)
		n := r.Intn(100)
		if i%3 == 0 {
			n = 16 * r.Intn(5)
		}
		msg := bytes(r, n)
		var alg int
		var tag []byte
		switch i % 3 {
		case 0:
			alg, tag = 5, cbcmac.NewCMAC(must(sm4.NewCipher(k)), 16).MAC(msg)
		case 1:
			alg, tag = 7, cbcmac.NewTRCBCMAC(must(sm4.NewCipher(k)), 8).MAC(msg)
		case 2:
			alg, tag = 8, cbcmac.NewCBCRMAC(must(sm4.NewCipher(k)), 16).MAC(msg)
		}
		fmt.Println(alg, 4, h(k), "-", h(msg), h(tag))
	}
}

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "macs":
		macs(rand.New(rand.NewSource(15852)))
	case "sm9":
		sm9Vectors(rand.New(rand.NewSource(20261127)))
	default:
		modes(rand.New(rand.NewSource(17964)))
	}
}
