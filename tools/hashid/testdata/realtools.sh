#!/usr/bin/env bash
# realtools.sh writes realtools.tsv: hashes made by the tools people get them
# from, each with the format the identifier must name. Run once on Debian 12
# (bookworm) as root, from this directory:
#
#   apt-get install whois apache2-utils slapd dovecot-core php-cli mariadb-server \
#       postgresql python3-passlib python3-bcrypt python3-argon2 python3-werkzeug python3-django
#   bash realtools.sh > realtools.tsv
#
# Every tool is asked for each scheme it offers; bare hex digests that only
# context could name (passlib's nthash, lmhash, msdcc, htdigest) are left out,
# since no tool-made string of them differs from an MD5.
set -euo pipefail
pw=(hashcat 'correct horse' 'S3cret!' 'p@ssw0rd' letmein 'Tr0ub4dor&3')
i=0
next() { i=$(( (i + 1) % ${#pw[@]} )); printf '%s' "${pw[$i]}"; }
row() { printf '%s\t%s\t%s\n' "$1" "$2" "$3"; }

echo "# tool and command	format the identifier must name	hash"

for m in 1:md5crypt apr1:'Apache $apr1$ MD5, md5apr1, MD5 (APR)' 5:sha256crypt 6:sha512crypt aixmd5:'AIX {smd5}'; do
  row "openssl passwd -${m%%:*}" "${m#*:}" "$(openssl passwd -"${m%%:*}" "$(next)")"
done
for m in md5:MD5 sha1:SHA-1 sha224:SHA-224 sha256:SHA-256 sha384:SHA-384 sha512:SHA-512 sha3-256:SHA3-256; do
  row "openssl dgst -${m%%:*}" "${m#*:}" "$(printf '%s' "$(next)" | openssl dgst -"${m%%:*}" -r | cut -d' ' -f1)"
done
for m in md5:'MD5 (base64)' sha1:'SHA-1 (base64)' sha256:'SHA-256 (base64)' sha512:'SHA-512 (base64)'; do
  row "openssl dgst -${m%%:*} -binary | base64" "${m#*:}" "$(printf '%s' "$(next)" | openssl dgst -"${m%%:*}" -binary | base64 -w0)"
done

for m in m:'Apache $apr1$ MD5, md5apr1, MD5 (APR)' B:bcrypt s:'nsldap, SHA-1(Base64), Netscape LDAP SHA' d:descrypt 2:sha256crypt 5:sha512crypt; do
  row "htpasswd -nb${m%%:*}" "${m#*:}" "$(htpasswd -nb"${m%%:*}" alice "$(next)" | cut -d: -f2-)"
done
row "htpasswd -nbB (whole line)" bcrypt "$(htpasswd -nbB bob "$(next)")"
row "htpasswd -nbm (whole line)" 'Apache $apr1$ MD5, md5apr1, MD5 (APR)' "$(htpasswd -nbm carol "$(next)")"

for m in yescrypt gost-yescrypt scrypt:'scrypt ($7$)' bcrypt bcrypt-a:bcrypt sha512crypt sha256crypt sunmd5:'Sun MD5 crypt' \
         md5crypt bsdicrypt:'BSDi Crypt, Extended DES' descrypt nt:NTLM; do
  name=${m%%:*}; want=${m#*:}
  row "mkpasswd -m $name" "$want" "$(mkpasswd -m "$name" "$(next)")"
done

for m in '{SSHA}:nsldaps, SSHA-1(Base64), Netscape LDAP SSHA' '{SHA}:nsldap, SHA-1(Base64), Netscape LDAP SHA' \
         '{MD5}:LDAP {MD5}' '{SMD5}:LDAP {SMD5}'; do
  row "slappasswd -h ${m%%:*}" "${m#*:}" "$(slappasswd -h "${m%%:*}" -s "$(next)")"
done
row "slappasswd -h {CRYPT} -c '\$6\$%.16s'" sha512crypt "$(slappasswd -h '{CRYPT}' -c '$6$%.16s' -s "$(next)")"
row "slappasswd -h {CRYPT} -c '\$1\$%.8s'" md5crypt "$(slappasswd -h '{CRYPT}' -c '$1$%.8s' -s "$(next)")"

for m in SHA512-CRYPT:sha512crypt SHA256-CRYPT:sha256crypt MD5-CRYPT:md5crypt BLF-CRYPT:bcrypt CRYPT:bcrypt \
         ARGON2I:Argon2 ARGON2ID:Argon2 SSHA:'nsldaps, SSHA-1(Base64), Netscape LDAP SSHA' \
         SSHA256:'SSHA-256(Base64), LDAP {SSHA256}' SSHA512:'SSHA-512(Base64), LDAP {SSHA512}' \
         SHA:'nsldap, SHA-1(Base64), Netscape LDAP SHA' SHA256:'LDAP {SHA256}' SHA512:'LDAP {SHA512}' \
         SMD5:'LDAP {SMD5}' PLAIN-MD5:MD5 PLAIN-MD4:MD4 LDAP-MD5:'MD5 (base64)' CRAM-MD5:'CRAM-MD5 Dovecot' \
         HMAC-MD5:'CRAM-MD5 Dovecot' PBKDF2:'Dovecot PBKDF2' SCRAM-SHA-1:'Dovecot SCRAM-SHA-1' \
         SCRAM-SHA-256:'Dovecot SCRAM-SHA-256' MD5:md5crypt; do
  row "doveadm pw -s ${m%%:*}" "${m#*:}" "$(doveadm pw -s "${m%%:*}" -p "$(next)")"
done
row "doveadm pw -s DIGEST-MD5 -u bob" 'Dovecot DIGEST-MD5' "$(doveadm pw -s DIGEST-MD5 -u bob -p "$(next)")"

PWS="${pw[*]}" /usr/bin/python3 - <<'PY'
import base64, hashlib, os
from passlib import hash as h
pws = os.environ["PWS"].split(" ")
n = 0
def pw():
    global n
    n += 1
    return pws[n % len(pws)]
def row(tool, want, value):
    print(f"{tool}\t{want}\t{value}")
for name, want in [("md5", "MD5"), ("sha1", "SHA-1"), ("sha224", "SHA-224"), ("sha256", "SHA-256"),
                   ("sha384", "SHA-384"), ("sha512", "SHA-512"), ("sha3_256", "SHA3-256"), ("blake2b", "BLAKE2b-512")]:
    row(f"python hashlib.{name}().hexdigest()", want, hashlib.new(name, pw().encode()).hexdigest())
passlib = [
    ("md5_crypt", "md5crypt"), ("apr_md5_crypt", "Apache $apr1$ MD5, md5apr1, MD5 (APR)"),
    ("sha256_crypt", "sha256crypt"), ("sha512_crypt", "sha512crypt"), ("bcrypt", "bcrypt"),
    ("bcrypt_sha256", "passlib bcrypt-sha256"), ("argon2", "Argon2"), ("scrypt", "passlib scrypt"),
    ("pbkdf2_sha1", "Python passlib pbkdf2-sha1"), ("pbkdf2_sha256", "Python passlib pbkdf2-sha256"),
    ("pbkdf2_sha512", "Python passlib pbkdf2-sha512"), ("sha1_crypt", "Juniper/NetBSD sha1crypt"),
    ("sun_md5_crypt", "Sun MD5 crypt"), ("des_crypt", "descrypt"), ("bsdi_crypt", "BSDi Crypt, Extended DES"),
    ("bsd_nthash", "NTLM"), ("phpass", "phpass"), ("ldap_salted_sha1", "nsldaps, SSHA-1(Base64), Netscape LDAP SSHA"),
    ("ldap_salted_sha256", "SSHA-256(Base64), LDAP {SSHA256}"), ("ldap_salted_sha512", "SSHA-512(Base64), LDAP {SSHA512}"),
    ("ldap_sha1", "nsldap, SHA-1(Base64), Netscape LDAP SHA"), ("ldap_md5", "LDAP {MD5}"), ("ldap_salted_md5", "LDAP {SMD5}"),
    ("ldap_hex_md5", "LDAP {MD5}"), ("ldap_hex_sha1", "nsldap, SHA-1(Base64), Netscape LDAP SHA"),
    ("ldap_pbkdf2_sha1", "LDAP {PBKDF2} (passlib)"), ("ldap_pbkdf2_sha256", "LDAP {PBKDF2-SHA256} (passlib)"),
    ("ldap_pbkdf2_sha512", "LDAP {PBKDF2-SHA512} (passlib)"), ("atlassian_pbkdf2_sha1", "Atlassian (PBKDF2-HMAC-SHA1)"),
    ("grub_pbkdf2_sha512", "GRUB 2"), ("cta_pbkdf2_sha1", "passlib PBKDF2-SHA1 ($p5k2$)"),
    ("dlitz_pbkdf2_sha1", "passlib PBKDF2-SHA1 ($p5k2$)"), ("scram", "passlib SCRAM"), ("fshp", "FSHP"),
    ("django_pbkdf2_sha256", "Django (PBKDF2-SHA256)"), ("django_pbkdf2_sha1", "Django PBKDF2-SHA1"),
    ("django_bcrypt_sha256", "Django bcrypt-SHA256"), ("django_argon2", "Django Argon2"),
    ("django_salted_sha1", "Django (SHA-1)"), ("django_salted_md5", "Django MD5"),
    ("mysql41", "MySQL4.1/MySQL5"), ("mysql323", "MySQL323"), ("mssql2000", "MSSQL (2000)"), ("mssql2005", "MSSQL (2005)"),
    ("oracle11", "Oracle S: Type (Oracle 11+)"), ("cisco_pix", "Cisco-PIX MD5"), ("cisco_type7", "Cisco type 7 (reversible)"),
]
for name, want in passlib:
    row(f"python passlib.hash.{name}.hash()", want, getattr(h, name).hash(pw()))
row("python passlib.hash.postgres_md5.hash(user='bob')", "PostgreSQL", h.postgres_md5.hash(pw(), user="bob"))
row("python passlib.hash.oracle10.hash(user='SCOTT')", "Oracle H: Type (Oracle 7+)", h.oracle10.hash(pw(), user="SCOTT"))
row("python passlib.hash.cisco_asa.hash(user='admin')", "Cisco-PIX MD5", h.cisco_asa.hash(pw(), user="admin"))
from werkzeug.security import generate_password_hash
row("python werkzeug generate_password_hash()", "Werkzeug PBKDF2-SHA256", generate_password_hash(pw()))
row("python werkzeug generate_password_hash(method='pbkdf2:sha512')", "Werkzeug PBKDF2-SHA512", generate_password_hash(pw(), "pbkdf2:sha512"))
from django.conf import settings
settings.configure(PASSWORD_HASHERS=[
    "django.contrib.auth.hashers.PBKDF2PasswordHasher", "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher", "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.BCryptPasswordHasher"])
from django.contrib.auth.hashers import make_password
for hasher, want in [("default", "Django (PBKDF2-SHA256)"), ("pbkdf2_sha1", "Django PBKDF2-SHA1"), ("argon2", "Django Argon2"),
                     ("bcrypt_sha256", "Django bcrypt-SHA256"), ("bcrypt", "Django bcrypt")]:
    row(f"python django make_password(hasher='{hasher}')", want, make_password(pw(), hasher=hasher))
PY

PWS="${pw[*]}" php -r '
$pws = explode(" ", getenv("PWS")); $n = 0;
function pw() { global $pws, $n; $n++; return $pws[$n % count($pws)]; }
function row($t, $w, $v) { echo "$t\t$w\t$v\n"; }
row("php password_hash(PASSWORD_DEFAULT)", "bcrypt", password_hash(pw(), PASSWORD_DEFAULT));
row("php password_hash(PASSWORD_ARGON2I)", "Argon2", password_hash(pw(), PASSWORD_ARGON2I));
row("php password_hash(PASSWORD_ARGON2ID)", "Argon2", password_hash(pw(), PASSWORD_ARGON2ID));
row("php crypt(\$pw, \"\$1\$...\")", "md5crypt", crypt(pw(), "\$1\$" . substr(md5(pw()), 0, 8)));
row("php crypt(\$pw, \"\$6\$rounds=10000\$...\")", "sha512crypt", crypt(pw(), "\$6\$rounds=10000\$" . substr(md5(pw()), 0, 16)));
row("php crypt(\$pw, \"_J9..\")", "BSDi Crypt, Extended DES", crypt(pw(), "_J9..rsmS"));
row("php md5()", "MD5", md5(pw()));
row("php sha1()", "SHA-1", sha1(pw()));
row("php hash(\"sha256\")", "SHA-256", hash("sha256", pw()));
row("php hash(\"sha512\")", "SHA-512", hash("sha512", pw()));
'

tmp=$(mktemp -d)
trap 'kill $(cat "$tmp/mysqld.pid" 2>/dev/null) 2>/dev/null || true; su postgres -s /bin/sh -c "/usr/lib/postgresql/*/bin/pg_ctl -D $tmp/pg stop -m immediate" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
mariadb-install-db --no-defaults --datadir="$tmp/my" --user=root >/dev/null 2>&1
mariadbd --no-defaults --datadir="$tmp/my" --socket="$tmp/my.sock" --pid-file="$tmp/mysqld.pid" --skip-networking --user=root >/dev/null 2>&1 &
for _ in $(seq 50); do [ -S "$tmp/my.sock" ] && break; sleep 0.2; done
row "mariadb SELECT PASSWORD()" "MySQL4.1/MySQL5" "$(mariadb --no-defaults -S "$tmp/my.sock" -uroot -N -e "SELECT PASSWORD('$(next)')")"
row "mariadb SELECT OLD_PASSWORD()" "MySQL323" "$(mariadb --no-defaults -S "$tmp/my.sock" -uroot -N -e "SELECT OLD_PASSWORD('$(next)')")"

chown -R postgres "$tmp"; chmod 755 "$tmp"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | tail -1)
su postgres -s /bin/sh -c "$pgbin/initdb -D $tmp/pg -A trust >/dev/null && $pgbin/pg_ctl -D $tmp/pg -o '-k $tmp -c listen_addresses=' -l $tmp/pg.log start >/dev/null"
pg() { su postgres -s /bin/sh -c "psql -h $tmp -At -c \"$1\""; }
pg "SET password_encryption = 'md5'; CREATE ROLE bob LOGIN PASSWORD '$(next)'" >/dev/null
pg "SET password_encryption = 'scram-sha-256'; CREATE ROLE eve LOGIN PASSWORD '$(next)'" >/dev/null
row "postgres pg_authid.rolpassword (md5)" "PostgreSQL" "$(pg "SELECT rolpassword FROM pg_authid WHERE rolname = 'bob'")"
row "postgres pg_authid.rolpassword (scram-sha-256)" "PostgreSQL SCRAM-SHA-256" "$(pg "SELECT rolpassword FROM pg_authid WHERE rolname = 'eve'")"
