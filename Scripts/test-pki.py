#!/usr/bin/env python3
"""Makes the certificates the TLS tests use, good and bad, in the folder given.

A root CA and an intermediate CA; a leaf for localhost, 127.0.0.1 and ::1;
and the bad ones: expired, not yet valid, wrong host, self-signed, from an
untrusted root, without its intermediate. A client certificate (plain and
passphrase-encrypted key) for mutual TLS. In `hardening/`, under a root of
their own, the unusual shapes a client must refuse or accept: names only in
the CN, wildcards, key usages (an RSA leaf), broken chains. All keys are
P-256 but that RSA one, made fresh on each run, so nothing secret lives in
the repository.
"""
import datetime
import ipaddress
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

NOW = datetime.datetime.now(datetime.timezone.utc)
DAY = datetime.timedelta(days=1)
PASSPHRASE = b"fiber-test-passphrase"


def key():
    return ec.generate_private_key(ec.SECP256R1())


def name(common):
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Fiber tests"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common)])


def certificate(subject, subject_key, issuer, issuer_key, *, ca=False, sans=None,
                not_before=NOW - DAY, not_after=NOW + 30 * DAY, client=False, path_length=None, key_usage=None):
    builder = (x509.CertificateBuilder()
               .subject_name(name(subject)).issuer_name(name(issuer))
               .public_key(subject_key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=path_length), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), critical=False))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    else:
        usage = ExtendedKeyUsageOID.CLIENT_AUTH if client else ExtendedKeyUsageOID.SERVER_AUTH
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        if key_usage is not None:
            builder = builder.add_extension(key_usage, critical=True)
    if sans:
        entries = []
        for san in sans:
            try:
                entries.append(x509.IPAddress(ipaddress.ip_address(san)))
            except ValueError:
                entries.append(x509.DNSName(san))
        builder = builder.add_extension(x509.SubjectAlternativeName(entries), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def pem(*certificates):
    return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certificates)


def key_pem(private_key, passphrase=None):
    encryption = (serialization.BestAvailableEncryption(passphrase) if passphrase
                  else serialization.NoEncryption())
    return private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


def main(folder):
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    write = lambda file, data: (out / file).write_bytes(data)

    root_key, inter_key, leaf_key = key(), key(), key()
    root = certificate("Fiber Test Root CA", root_key, "Fiber Test Root CA", root_key, ca=True)
    inter = certificate("Fiber Test Intermediate CA", inter_key, "Fiber Test Root CA", root_key, ca=True)
    local = ["localhost", "127.0.0.1", "::1"]
    leaf = certificate("localhost", leaf_key, "Fiber Test Intermediate CA", inter_key, sans=local)
    write("root.pem", pem(root))
    write("root.der", root.public_bytes(serialization.Encoding.DER))
    write("intermediate.pem", pem(inter))
    write("intermediate.der", inter.public_bytes(serialization.Encoding.DER))
    write("leaf.key", key_pem(leaf_key))
    write("leaf.der", leaf.public_bytes(serialization.Encoding.DER))
    write("chain.pem", pem(leaf, inter))
    write("leaf-only.pem", pem(leaf))

    bad = {
        "expired": dict(not_before=NOW - 60 * DAY, not_after=NOW - 30 * DAY),
        "not-yet-valid": dict(not_before=NOW + 30 * DAY, not_after=NOW + 60 * DAY),
    }
    for file, dates in bad.items():
        write(f"{file}.pem", pem(certificate("localhost", leaf_key, "Fiber Test Intermediate CA", inter_key,
                                             sans=local, **dates), inter))
    write("wrong-host.pem", pem(certificate("other.example", leaf_key, "Fiber Test Intermediate CA", inter_key,
                                            sans=["other.example"]), inter))
    write("self-signed.pem", pem(certificate("localhost", leaf_key, "localhost", leaf_key, sans=local)))
    other_root_key = key()
    other_root = certificate("Untrusted Root CA", other_root_key, "Untrusted Root CA", other_root_key, ca=True)
    write("untrusted-root.pem", pem(certificate("localhost", leaf_key, "Untrusted Root CA", other_root_key, sans=local),
                                    other_root))

    client_key = key()
    client = certificate("Fiber Test Client", client_key, "Fiber Test Intermediate CA", inter_key, client=True)
    write("client-chain.pem", pem(client, inter))
    write("client.key", key_pem(client_key))
    write("client-encrypted.key", key_pem(client_key, PASSPHRASE))

    hardening(out / "hardening")


def key_usage(sign=False, encipher=False):
    return x509.KeyUsage(sign, False, encipher, False, False, False, False, False, False)


def hardening(out):
    """The shapes a client must refuse or accept, under "Hardening Root CA"."""
    out.mkdir(parents=True, exist_ok=True)
    write = lambda file, data: (out / file).write_bytes(data)
    root_key, inter_key, leaf_key = key(), key(), key()
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    write("leaf.key", key_pem(leaf_key))
    write("rsa.key", key_pem(rsa_key))
    local = ["localhost", "127.0.0.1", "::1"]
    root = certificate("Hardening Root CA", root_key, "Hardening Root CA", root_key, ca=True)
    inter = certificate("Hardening Intermediate CA", inter_key, "Hardening Root CA", root_key, ca=True)
    write("root.pem", pem(root))
    write("intermediate.pem", pem(inter))

    def leaf(subject_key=leaf_key, **options):
        return certificate("localhost", subject_key, "Hardening Intermediate CA", inter_key, **options)

    # Names: only the subject's CN says localhost, or the SAN has only an IP; then a proper SAN.
    write("cn-only.pem", pem(leaf(), inter))
    write("ip-san-only.pem", pem(leaf(sans=["127.0.0.1"]), inter))
    write("dns-san.pem", pem(leaf(sans=["localhost"]), inter))
    # Wildcards: a whole left-most label, and a partial one.
    write("wildcard.pem", pem(leaf(sans=["*.fiber.test"]), inter))
    write("partial-wildcard.pem", pem(leaf(sans=["w*.fiber.test"]), inter))
    # Key usage of an RSA leaf: encipherment only, signature only, none at all.
    write("ku-encipherment.pem", pem(leaf(rsa_key, sans=local, key_usage=key_usage(encipher=True)), inter))
    write("ku-signature.pem", pem(leaf(rsa_key, sans=local, key_usage=key_usage(sign=True)), inter))
    write("ku-none.pem", pem(leaf(rsa_key, sans=local), inter))
    # Broken chains.
    write("leaf-expired.pem", pem(leaf(sans=local, not_before=NOW - 60 * DAY, not_after=NOW - 30 * DAY), inter))
    write("leaf-only.pem", pem(leaf(sans=local)))
    old_key = key()
    old = certificate("Hardening Expired Intermediate CA", old_key, "Hardening Root CA", root_key, ca=True,
                      not_before=NOW - 60 * DAY, not_after=NOW - 30 * DAY)
    write("expired-intermediate.pem",
          pem(certificate("localhost", leaf_key, "Hardening Expired Intermediate CA", old_key, sans=local), old))
    fake_key = key()
    fake = certificate("Hardening Not A CA", fake_key, "Hardening Root CA", root_key)
    write("not-ca-intermediate.pem", pem(certificate("localhost", leaf_key, "Hardening Not A CA", fake_key, sans=local), fake))
    zero_key, sub_key = key(), key()
    zero = certificate("Hardening Path Zero CA", zero_key, "Hardening Root CA", root_key, ca=True, path_length=0)
    sub = certificate("Hardening Sub CA", sub_key, "Hardening Path Zero CA", zero_key, ca=True)
    write("path-length.pem", pem(certificate("localhost", leaf_key, "Hardening Sub CA", sub_key, sans=local), sub, zero))
    private_root_key, private_inter_key = key(), key()
    private_inter = certificate("Hardening Private Intermediate CA", private_inter_key, "Hardening Private Root CA",
                                private_root_key, ca=True)
    write("private-root.pem",
          pem(certificate("localhost", leaf_key, "Hardening Private Intermediate CA", private_inter_key, sans=local),
              private_inter))


if __name__ == "__main__":
    main(sys.argv[1])
