#!/usr/bin/env python3
"""Makes the certificates the TLS tests use, good and bad, in the folder given.

A root CA and an intermediate CA; a leaf for localhost, 127.0.0.1 and ::1;
and the bad ones: expired, not yet valid, wrong host, self-signed, from an
untrusted root, without its intermediate. A client certificate (plain and
passphrase-encrypted key) for mutual TLS. All keys are P-256, made fresh on
each run, so nothing secret lives in the repository.
"""
import datetime
import ipaddress
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
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
                not_before=NOW - DAY, not_after=NOW + 30 * DAY, client=False):
    builder = (x509.CertificateBuilder()
               .subject_name(name(subject)).issuer_name(name(issuer))
               .public_key(subject_key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), critical=False))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    else:
        usage = ExtendedKeyUsageOID.CLIENT_AUTH if client else ExtendedKeyUsageOID.SERVER_AUTH
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
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


if __name__ == "__main__":
    main(sys.argv[1])
