// Writes outputs of emmansun/gmsm v0.44.0 (through its public API) for shangmi-pki's
// tests, which read the committed file and need no Go:
//
//	go run . generate > ../data/gmsm_v0.44.txt
//	go run . check FILE   (reads "name hex" lines our side wrote; verifies them with gmsm)
//
// generate: fixed keys, a self-signed SM2 certificate (smx509), an SM2EnvelopedKey
// (sm2.MarshalEnvelopedPrivateKey), GM/T 0010 SignedData attached and detached
// (pkcs7.NewSMSignedData), EnvelopedData with issuer-and-serial (pkcs7.EncryptSM) and
// subject-key-identifier (pkcs7.EnvelopeMessageCFCA) recipients, SM4-CBC.
package main

import (
	"bufio"
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/emmansun/gmsm/pkcs"
	"github.com/emmansun/gmsm/pkcs7"
	"github.com/emmansun/gmsm/sm2"
	"github.com/emmansun/gmsm/smx509"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func key(h string) *sm2.PrivateKey {
	return must(sm2.NewPrivateKey(must(hex.DecodeString(h))))
}

const (
	signerKey  = "3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8"
	wrappedKey = "6f1c4b0e2a9d8e7f0b1c2d3e4f5a6b7c8d9eafb0c1d2e3f405162738495a6b7c"
	content    = "GM/T 0010 message from gmsm v0.44.0\n"
)

func certificate(k *sm2.PrivateKey) []byte {
	tmpl := &smx509.Certificate{
		SerialNumber:          big.NewInt(0x2026),
		Subject:               pkix.Name{Country: []string{"CN"}, Organization: []string{"gmsm"}, CommonName: "gmsm v0.44.0 test signer"},
		NotBefore:             time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2045, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:              smx509.KeyUsageDigitalSignature | smx509.KeyUsageKeyEncipherment | smx509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		SubjectKeyId:          []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
	}
	return must(smx509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k))
}

func generate() {
	k := key(signerKey)
	w := key(wrappedKey)
	der := certificate(k)
	cert := must(smx509.ParseCertificate(der))
	fmt.Println("# emmansun/gmsm v0.44.0 outputs (pki/tests/gmsm_vectors, `go run . generate`)")
	fmt.Println("signer_key", signerKey)
	fmt.Println("wrapped_key", wrappedKey)
	fmt.Println("certificate", hex.EncodeToString(der))
	fmt.Println("content", hex.EncodeToString([]byte(content)))
	env := must(sm2.MarshalEnvelopedPrivateKey(rand.Reader, &k.PublicKey, w))
	fmt.Println("enveloped_key", hex.EncodeToString(env))
	for _, detached := range []bool{false, true} {
		sd := must(pkcs7.NewSMSignedData([]byte(content)))
		if err := sd.AddSigner(cert, k, pkcs7.SignerInfoConfig{}); err != nil {
			panic(err)
		}
		name := "signed_attached"
		if detached {
			sd.Detach()
			name = "signed_detached"
		}
		fmt.Println(name, hex.EncodeToString(must(sd.Finish())))
	}
	fmt.Println("enveloped_issuer_serial", hex.EncodeToString(must(pkcs7.EncryptSM(pkcs.SM4CBC, []byte(content), []*smx509.Certificate{cert}))))
	fmt.Println("enveloped_ski", hex.EncodeToString(must(pkcs7.EnvelopeMessageCFCA(pkcs.SM4CBC, []byte(content), []*smx509.Certificate{cert}))))
}

// check verifies what our side wrote: "name hex" lines with the same names as generate's
// (signer_key, certificate, content, enveloped_key, signed_attached, enveloped_issuer_serial).
func check(path string) {
	f := must(os.Open(path))
	defer f.Close()
	v := map[string][]byte{}
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		parts := strings.Fields(s.Text())
		if len(parts) == 2 && !strings.HasPrefix(parts[0], "#") {
			v[parts[0]] = must(hex.DecodeString(parts[1]))
		}
	}
	k := must(sm2.NewPrivateKey(v["signer_key"]))
	cert := must(smx509.ParseCertificate(v["certificate"]))
	if err := cert.CheckSignatureFrom(cert); err != nil {
		fmt.Println("certificate self-signature: FAIL", err)
	} else {
		fmt.Println("certificate self-signature: OK")
	}
	got, err := sm2.ParseEnvelopedPrivateKey(k, v["enveloped_key"])
	if err != nil {
		fmt.Println("enveloped_key: FAIL", err)
	} else {
		fmt.Println("enveloped_key: OK", hex.EncodeToString(got.D.Bytes()) == hex.EncodeToString(v["wrapped_key"]))
	}
	p7, err := pkcs7.Parse(v["signed_attached"])
	if err == nil {
		err = p7.Verify()
	}
	if err != nil {
		fmt.Println("signed_attached: FAIL", err)
	} else {
		fmt.Println("signed_attached: OK", string(p7.Content) == string(v["content"]))
	}
	p7, err = pkcs7.Parse(v["enveloped_issuer_serial"])
	var pt []byte
	if err == nil {
		pt, err = p7.Decrypt(cert, k)
	}
	if err != nil {
		fmt.Println("enveloped_issuer_serial: FAIL", err)
	} else {
		fmt.Println("enveloped_issuer_serial: OK", string(pt) == string(v["content"]))
	}
}

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "generate" {
		generate()
		return
	}
	if len(os.Args) >= 3 && os.Args[1] == "check" {
		check(os.Args[2])
		return
	}
	fmt.Fprintln(os.Stderr, "usage: go run . generate | check FILE")
	os.Exit(2)
}
