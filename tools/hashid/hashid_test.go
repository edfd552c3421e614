package hashid_test

import (
	"strings"
	"testing"

	"secutil/tools/hashid"
)

// examples are hashcat-style example hashes (many from hashcat's published
// example list, some reconstructed in the documented shape), digests of known
// inputs ("hashcat") and a few synthetic strings. top means the format must
// rank first.
var examples = []struct {
	hash string
	mode int
	top  bool
}{
	{"8743b52063cd84097a65d1633f5c74f5", 0, true},
	{"b4b9b02e6f09a9bd760f388b67351e2b", 1000, false},
	{"afe04867ec7a3845145579a95f72eca7", 900, false},
	{"299bd128c1101fd6", 3000, false},
	{"7196759210defdc0", 200, true},
	{"b89eaac7e61417341b710b727768294d0e6a277b", 100, true},
	{"012cb9b334ec1aeb71a9c8ce85586082467f7eb6", 6000, false},
	{"e4fa1555ad877bf0ec455483371867200eee89550a93eff2f95a6198", 1300, true},
	{"127e6fbfe24a750e72930c220a8e138275656b8e5d8f48a98c3c92df2caba935", 1400, true},
	{"127e6fbfe24a750e72930c220a8e138275656b8e5d8f48a98c3c92df2caba935", 17400, false},
	{"127e6fbfe24a750e72930c220a8e138275656b8e5d8f48a98c3c92df2caba935", 17800, false},
	{"07371af1ca1fca7c6941d2399f3610f1e392c56c6d73fddffe38f18c430a2817028dae1ef09ac683b62148a2c8757f42", 10800, true},
	{"82a9dda829eb7f8ffe9fbe49e45d47d2dad9664fbb7adf72492e3c81ebd3e29134d9bc12212bf83c6840f10e8246b9db54a4859b7ccd0123d86e5872c1e5082f", 1700, true},
	{"82a9dda829eb7f8ffe9fbe49e45d47d2dad9664fbb7adf72492e3c81ebd3e29134d9bc12212bf83c6840f10e8246b9db54a4859b7ccd0123d86e5872c1e5082f", 6100, false},
	{"c762de4a", 11500, true},
	{"$1$28772684$iEwNOgGugqO9.bIz5sk8k/", 500, true},
	{"$apr1$71850310$gh9m4xcAn3MGxogwX/ztb.", 1600, true},
	{"$5$rounds=5000$GX7BopJZJxPc/KEK$le16UF8I2Anb.rOrn22AUPWvzUETDGefUmAV8AZkGcD", 7400, true},
	{"$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/", 1800, true},
	{"$2a$05$LhayLxezLhK1LhWvKxCyLOj0j1u.Kj0jZ0pEmm134uzrQlFvQJLF6", 3200, true},
	{"$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a", 3200, true},
	{"$P$984478476IagS59wHZvyQMArzfx58u.", 400, true},
	{"$H$984478476IagS59wHZvyQMArzfx58u.", 400, true},
	{"$S$C33783772bRXEx1aCsvY.dqgaaSu76XmVlKrW9Qu8IQlvxHlmzLf", 7900, true},
	{"$argon2id$v=19$m=65536,t=3,p=1$FBMjI4RJBhIykCgol1KEJA$2ky5GAdhT1kH4kIgPN/oERE3Taiy43vNN70a3HpiKQU", 34000, true},
	{"*FCF7C1B8749CF99D88E5F34271D636178FB5D130", 300, true},
	{"md5a6343a68d964ca596d9752250d54bb8a", 12, true},
	{"a6343a68d964ca596d9752250d54bb8a:postgres", 12, false},
	{"4dd8965d1d476fa0d026722989a6b772:3060147285011", 1100, false},
	{"$DCC2$10240#tom#e4e938d12fe5974dc42a90120bd9c90f", 2100, true},
	{"u4-netntlm::kNS:338d08f8e26de93300000000000000000000000000000000:9526fb8c23a90751cdd619b6cea564742e1e4bf33006ba41:cb8086049ec4736c", 5500, true},
	{"admin::N46iSNekpT:08ca45b7d7ea58ee:88dcbe4446168966a153a0064958dac6:5c7830315c7830310000000000000b45c67103d07d7b95acd12ffa11230e0000000052920b85f78d013c31cdb3b92f5d765c783030", 5600, true},
	{"$krb5tgs$23$*user$realm$test/spn*$b548e10f5694ae018d7ad63c257af7dc$35e8e45658860bc31a859b41a08989265f4ef8afd75652ab4d7a30ef151bf6350d879ae189a8cb769e01fa573c6315232b37e4bcad9105520640a781e5fd85c09615e78267e494f433f067cc6958200a82f70627ce0eebc2ac445729c2a8a0255dc3ede2c4973d2d93ac8c1a56b26444df300cb93045d05ff2326affaa3ae97f5cd866c14b78a459f0933a550e0b6507bf8af27c2391ef", 13100, true},
	{"$krb5asrep$23$user@domain.com:3e156ada591263b8aab0965f5aebd837$007497cb51b6c8116d6407a782ea0e1c5402b17db7afa6b05a6d30ed164a9933c754d720e279c6c573679bd27128fe77e5fea1f72334c1193c8ff0b370fadc6368bf2d49bbfdba4c5dccab95e8c8ebfdc75f438a0797dbfb2f8a1a5f4c423f9bfc1fea483342a11bd56a216f4d5158ccc4b224b52894fadfba3957dfe4b6b8f5f9f9fe422811a314768673e0c924340b8ccb84775ce9defaa3baa0910b676ad0036d13032b0dd94e3b13903cc738a7b6d00b0b3c210d1f972a6c7cae9bd3c959acf7565be528fc179118f28c679f6deeee1456f0781eb8154e18e49cb27b64bf74cd7112a0ebae2102ac", 18200, true},
	{"$krb5pa$23$user$realm$salt$5cbb0c882a2b26956e81644edbdb746326f4f5f0e947144fb3095dffe4b4b03e854fc1d631323632303b8a2b0be7f1fc2fdd8fd2f2bbe8f1ffa09c36a45cd8", 7500, true},
	{"$krb5tgs$18$user$realm$8efd91bb01cc69dd07e46009$7352410d6aafd72c64972a66058b02aa1c28ac580ba41137d5a170467f06f17faf5dfb3f95ecf4fad74821fdc7e63a3195573f45f962f86942cb24255e544ad8d05178d560f683a3f59ce94e82c8e724a3af0160be549b472dd83e6b80733ad349973885e2082c6819f26d9b6b9d8edfb5e6ae5a2d0fb5", 19700, true},
	{"WPA*01*4d4fe7aac3a2cecab195321ceb99a7d0*fc690c158264*f4747f87f9f4*686173686361742d6573736964***", 22000, true},
	{"WPA*02*024022795224bffca545276c3762686f*6466b38ec3fc*225edc49b7aa*54502d4c494e4b5f484153484341545f54455354*10e3be3b005a629e89de088d6a2fdc489db83ad4764f2d186b9cde15446e972e*0103007502010a0000000000000000000148ce2ccba9c1fda130ff2fbbfb4fd3b063d1a93920b0f7df54a5cbf787b16171000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001630140100000fac040100000fac040100000fac028000*a2", 22000, true},
	{"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", 16500, true},
	{"S:4C4D2C0E6D1D8D0E2B7B0A0E5C9CE3A6A7C6B1B4E0A8E1A1E2D6C2B4C5F3", 112, true},
	{"0x0100a1a2a3a4" + strings.Repeat("0f", 20), 132, true},
	{"0x0100a1a2a3a4" + strings.Repeat("0f", 40), 131, true},
	{"0x02006D9A6E38" + strings.Repeat("ab", 64), 1731, true},
	{"{SSHA}AZKja92fbuuB9SpRlHqaoXxbTc43Mzc2MDM1Ng==", 111, true},
	{"{SHA}uJ6qx+YUFzQbcQtyd2gpTQ5qJ3s=", 101, true},
	{"{SSHA512}ALtwKGBdRgD+U0fPAy31C28RyKYx7+a8kmfksccsOeLknLHv2DBXYI7TDnTolQMBuPkWDISgZr2cHfnNPFjGZTEyNDU4OTkw", 1711, true},
	{"{smd5}a5/yTL/u$VfvgyHx1xUlXZYBocQpQY0", 6300, true},
	{"{ssha1}06$bJbkFGJAB30L2e23$dCESGOsP7jaIIAJ1QAcmaGeG.kr", 6700, true},
	{"{ssha256}06$aJckFGJAB30LTe10$ohUsB7LBPlgclE3hJg9x042DLJvQyxVCX.nZZLEz.g2", 6400, true},
	{"{x-issha, 1024}C0624EvGSdAMCtuWnBBYBGA0chvqAflKY74oEpw/rpY=", 10300, true},
	{"pbkdf2_sha256$20000$H0dPx8NeajVu$GiC4k5kqbbR9qWBlsRgDywNqC2vd9kqfk7zdorEnNas=", 10000, true},
	{"sha1$fe76b$02d5916550edf7fc8c886f044887f4b1abf9b013", 124, true},
	{"$pbkdf2-sha256$29000$x9h7j/Ge8x6DMEao1VqrdQ$kra3R1wEnY8mPdDWOpTqOTINaAmZvRMcYd8u5OBQP9A", 20300, true},
	{"$pbkdf2-sha512$25000$LyWE0HrP2RsjZCxlDGFMKQ$1vC5Ohk2mCS9b6akqsEfgeb4l74SF8XjH.SljXf3dMLHdlY1MK9MBFIg2lYHSVpnc86tgIrQRK6wYwJ76B6K1A", 20200, true},
	{"sha1:64000:18:YSZBoEBtAvsKsVGs3OVM5Ea4lFFYcM0j:/1D8kEvJohyaMBwZ3vgbAOfyyh2/Jt3o", 12000, true},
	{"sha256:1000:MTc3MTA0MTQwMjQxNzY=:PYjCU215Mi57AYPKva9j7mvF4Rc5bCnt", 10900, true},
	{"grub.pbkdf2.sha512.10000.7d391ef48645f626b427b1fae06a7219b5b54f4f02b2621f86b5e36e83ae492bd1db60871e45bc07925cecb46ff8ba3db31c723c0c6acbd4f06f60c5b2ecd11b.823a3cc2fe8eefc8ad1595fd9abe6c02c09cfd7c1f82e5b3a5d0b4b6b2c2e0f7c8d31ef6d5fd2d4d7d6f86c7fbf8e7a8b2b0e6c83e3c2b67c1b8e05f97d8b7f1c", 7200, true},
	{"$ml$35460$93a94bd24b5de64d79a5e49fa372827e739f4d7b6975c752c9a0ff1e5cf72e05$752351df64dd2ce9dc9c64a72ad91de6581a15c19176266b44d98919dfa81f0f96cbcb20a1ffb400718c20382030f637892f776627d34e021bad4f81b7de8222", 7100, true},
	{"SCRYPT:1024:1:1:MDIwMzMwNTQwNDQyNQ==:5FW+zWivLxgCWj7qLiQbeC8zaNQ+qdO0NUinvqyFcfo=", 8900, true},
	{"$9$2MJBozw/9R3UsU$2lFhcKvpghcyw8deP25GOfyZaagyUOGBymkryvOdfo6", 9300, true},
	{"$8$TnGX/fE4KGHOVU$pEhnEvxrvaynpi8j4f.EMHr6M.FzU8xnZnBr/tJdFWk", 9200, true},
	{"2KFQnbNIdI.2KYOU", 2400, false},
	{"02fbbe3c8d8d8d8d", 200, true},
	{"48c/R8JAv757A", 1500, true},
	{"_9G..8147mpcfKT8g0U.", 12400, true},
	{"$sha1$40000$jtNX3nZ2$hBNaIXkt4wBI2o5rsi8KejSjNqIq", 15100, true},
	{"AK1AAECAwQFBgcICRARNGqgeC3is8gv2xWWRony9NJnDgE=", 7000, true},
	{"1765058016a22f1b4e076dccd1c3df4e8e5c0839ccded98ea", 8100, true},
	{"USER$C8B48F26B87B7EA7", 7700, true},
	{"USER$ABCAD719B17E7F794DF7E686E563E9E2D24DE1D0", 7800, true},
	{"(GDpOtD35gGlyDksQRxEU)", 8700, true},
	{"$racf$*USER*FC2577C6EBE6265B", 8500, true},
	{"$radmin2$22527bee5c29ce95373c4e0f359f079b", 9900, true},
	{"$7z$0$19$0$salt$8$f6196259a7326e3f0000000000000000$185065650$112$98$f3bc2a88062c419a25acd40c0c2d75421cf23263f69c51b13f9b1aada41a8a09f9adeae45d67c60b56aad338f20c0dcc5eb811c7a61128ee0746f922cdb9c59096869f341c7a9cb1ac7bb7d771f546b82cf4e6f11a5ecd4b61751e4d8de66dd6e2dfb5b7d1022d2211e2d66ea1703f96", 11600, true},
	{"$RAR3$*0*45109af8ab5f297a*adbf6c5385d7a40373e8f77d7b89d317", 12500, true},
	{"$rar5$16$74575567518807622265582327032280$15$f8b4064de34ac81ecd8f8a0b7c7d0b7a$8$9843834ed0f7c7b8", 13000, true},
	{"$zip2$*0*3*0*e3222d3b65b5a2785b192d31e39ff9de*1320*e*19648c3e063c82a9ad3ef08ed833*3135c79ecb86cd6f48fc*$/zip2$", 13600, true},
	{"$pdf$1*2*40*-1*0*16*01221086741440841668371056103222*32*27c3fecef6d46a78eb61b8b4dbc690f5f8a2912bbb9afc842c12d79481568b74*32*0000000000000000000000000000000000000000000000000000000000000000", 10400, true},
	{"$pdf$2*3*128*-1028*1*16*da42ee15d4b3e08fe5b9ecea0e02ad0f*32*c9b59d72c7c670c42eeb4fca1d2ca15000000000000000000000000000000000*32*c4ff3e868dc87604626c2b8c259297a14d58c6309c70b00afdfb1fbba10ee571", 10500, true},
	{"$office$*2007*20*128*16*411a51284e0d0200b131a8949aaaa5cc*117d532441c63968bee7647d9b7df7d6*df1d601ccf905b375575108f42ef838fb88e1cde", 9400, true},
	{"$office$*2013*100000*256*16*7dd611d7eb4c899f74816d1dec817b3b*948dc0b2c2c6c32f14b5995a543ad037*0b7ee0e48e935f937192a59de48a7d561ef2691d5c8a3ba87ec2d04402a94895", 9600, true},
	{"$oldoffice$1*04477077758555626246182730342136*b1b72ff351e41a7c68f6b45c4e938bd6*0d95331895e99f73ef8b6fbc4a78ac1a", 9700, true},
	{"$keepass$*2*24569*0*c40432355cce7348c48053ceea0a28e7d18859c4ea47e3a799c6300861f64b95*265dafcc42e1537ff42e97e1e283c70014133be0fe2d420b4d24c6d57c9d2207*a00e20a852694c15aabb074d61b902fa*48dd553fb96f7996635f2414bfe6a1a8429ef0ffb71a1752abbef31853172c35*a44ae659958ad7fae8c8952cb83f3cf03fec2371ce22a8bf7fac1e687af2f249*1*64*5a26ea376cc5afc955104c334571d30486aca8e2f8a34a2d4e", 13400, true},
	{"$bitlocker$1$16$6f972989ddc209f1eccf07313a7266a2$1048576$12$3a33a8eaff5e6f81d907b591$60$316b0f6d4cb445fb056f0e3e0633c413526ff4481bbf588917b70a4e8f8075f5ceb45958a800b42cb7ff9b7f5e17c6145bf8561ea86f52d3592059fb", 22100, true},
	{"$itunes_backup$*9*b8e3f3a970239b22ac199b622293fe4237b9d16e74bad2c3c3568cd1bd3c471615a6c4f867265642*10000*4542263740587424862267232255853830404566**", 14700, true},
	{"$ansible$0*0*6b761adc6faeb0cc0bf197d3d4a4a7d3f1682e4b169cae8fa6b459b3214ed41e*426d313c5809d4a80a4b9bc7d4823070*d8bad190c7fbc7c3cb1c60a27abfb0ff59d6fb73178681c7454d94a0f56a4360", 16900, true},
	{"$bitcoin$96$d011a1b6a8d675b7a36d0cd2efaca32a9f8dc1d57d6d01a58399ea04e703e8bbb44899039326f7a00f171a7bbc854a54$16$1563277210780230$158555$96$628835426818227243334570448571536352510740823233055715845322741625407685873076027233865346542174$66$625882875480513751851333441623702852811440775888122046360561760525", 11300, true},
	{"$ethereum$p*262144*3238383137313130353438343737383736323437353638393634393533313132*06eae7ee0a4b9e8abc02c9990e3730827396e8531558ed15bb733faf12a44ce1*e6d5891d4f199d31ec434fe25d9ecc2530716bc3b36d5bdbc1fab7685dda3946", 15600, true},
	{"$ethereum$s*262144*8*1*3436383737333838313035343736303637353530323430373235343034363130*8b58d9d15f579faba1cd13dd372faeb51718e7f70735de96f0bcb2ef4fb90278*8de566b919e6825a65746e266226316c1add8d8c3d15f54640902437bcffc8c3", 15700, true},
	{"$telegram$2*100000*77461dcb457ce9539f8e4235d33bd12455b4a38446e63b52ecdf2e7b65af4476*f705dda3247df6d690dfc7f44d8c666979737cae9505d961130071bcc18eeadaef0320ac6985e4a116834c0761e55314464aae56dadb8f80ab8886c16f72f8b95adca08b56a60c4303d84210f75cfd78a3e1a197c84a747988ce2e1b247397b61041823bdb33932714ba16ca7279e6c36b75d3f994479a469b50a7b2c7299a4d7aadb775fb030d3bb55ca77b7ce8ac2f5cf5eb7bdbcc10821b8953a4734b448060246e5bb93f130d6d3f2e28b9e04f2a064820be562274c040cd849f1473d45141559fc45da4c54abeaf5ca40d2d57f8f8e33bdb232c7279872f758b3fb452713b5d91c855383f7cec8376649a53b83951cf8edd519a99e91b8a6cb90153088e35d9fed332c7253771740f49f9dc40c7da50352656395bbfeae63e10f754d24a", 24500, true},
	{"$keychain$*74cd1efd49e54a8fdc8750288801e09fa26a33b1*66001ad4e0498dc7*5a084b7314971b728cb551ac40b2e50b7b5bd8b8496b902efe7af07538863a45394ead8399ec581681f7416003c49cc7", 23100, true},
	{"$episerver$*0*bEtiVGhPNlZpcUN4a3ExcQ==*utkfN0EOgljbv5FoZ6+AcZD5iLk", 141, true},
	{"$episerver$*1*MDEyMzQ1Njc4OWFiY2RlZg==*lRjiU46qHA7S6ZE7RfKUcYhB85ofArj1j7TrCtu3u6Y", 1441, true},
	{"3f7d1b9ae9a0e9e6a3f3a81ab4b2a6b0d4bcd2f9:9c2a8e7b1f3d4c5e6f7a8b9c0d1e2f3a", 4521, true},
	{"4a2b722cc65ecf0f7797cdaea4bce81f66716eef:653074362104", 4522, true},
	{"0223b799d526b596fe4ba5628b9e65068227e68e:f6d45822728ddb2c", 5800, true},
	{"16780ba78d2d5f02f3202901c1b6d975:568", 2611, true},
	{"bf366348c53ddcfbd16e63edfdd1eee6:181264250056774603641874043270", 2711, true},
	{"8d2129083ef35f4b365d5d87487e1207:47204", 2811, true},
	{"d17ac1d0c6c1ef1ab0cbdcdc1be75a95:ZtbT5ljQaZOMpCsbdNd1Ptgp4cyH5EOO", 11, true},
	{"a7c5c7e8a69b2b7b2c0f7fb73cb8f6d2:123", 2611, true},
	{"7d1ffafbb74e0a6a1d0e3d1b6e0e6e3b3e14ad0b:1234", 110, false},
	{"c55e7b1d4f3ac3a2c5b0a7e0e1e3e2c7f1d0d3a84d9a0c1d7e6e3b2a1c0f9e8d:salt", 1410, false},
	{"Administrator:500:aad3b435b51404eeaad3b435b51404ee:31d6cfe0d16ae931b73c59d7e0c089c0:::", 1000, true},
	{"a2d1f7b7a1862d0d4a52644e72d59df5:500:lp@trash-mail.com", 6800, true},
	{"$telegram$1*4000*e693c1e8d4ac4ec7dcc1a0a30a8d8e0b0e6c1a9e1f1b5c3d7a9c0f1e2d3c4b5a*88af8f8e5f8e4f3d2c1b0a99887766554433221100ffeeddccbbaa998877665544332211", 22600, true},
	{strings.Repeat("ab", 40) + ":" + strings.Repeat("cd", 40) + ":" + strings.Repeat("0a", 4) + ":" + strings.Repeat("0b", 4) + ":" + strings.Repeat("01", 60) + ":" + strings.Repeat("02", 100) + ":" + strings.Repeat("03", 8) + ":" + strings.Repeat("04", 8) + ":" + strings.Repeat("e5", 16), 5300, true},
	{"$BLAKE2$296c269e70ac5f0095e6fb47693480f0f7b97ccd0307f5c3bfa4df8f5ca5c9308a0e7108e80a0a9c0ebb715e8b7109b072046c6cd5e155b4cfd2f27216283b1e", 600, true},
	{"$mongodb-scram$*0*dXNlcg==*10000*4p+f1tKpK18hQqrVr0UGOw==*Jv9lrpUQ2bVg2ZkXvRm2rppsqNw=", 24100, true},
	{"SCRAM-SHA-256$4096:IX8JJ8W6VvuHFvwIIA16Aw==$d9NSUsSsZMK+NYHCc/Ngn0Xnr2FvqtoM9+3HZXKM/ME=:WQbD/5hUJIdhKSgVFVHgHt0mAMaNhkkJGeHuKgCrOS8=", 28600, true},
	{"$electrum$4*03eae309d8bda5dcbddaae8145469193152763894b7260a6c4ba181b3ac2ed5653*8c594086a64dc87a9c1f8a69f646e31e8d3182c3c722def4427aa20684776ac26092c6f60bf2762e27adfa93fe1e952dcb8d6362224b9a371953aa3a2edb596ce5eb4c0879c4353f2cc515ec6c9e7a6defa26c5df346d18a62e9d40fcc606bc8c34322bf2212f77770a683788db0baf4cb43595c2a27fe5ff8bdcb1fd915bcd725149d8ee8f14c71635fecb04da5dde97584f4581ceb7d907dceed80ae5daa8352dda20b25fd6001e99a96b7cf839a36cd3f5656304e6998c18e03dd2fb720cb41386c52910c9cb83272c3d50f3a6ff362ab8389b0c21c75133c971df0a75b331796371b060b32fe1673f4a041d7ae08bbdeffb45d706eaf65f99573c07972701c97766b4d7a8a03bba0f885eb3845dfd9152286e1de1f93e25ce04c54712509166dda80a84c2d34652f68e6c01e662f8b1cc7c15103a4502c29332a4fdbdda470c875809e15aab3f2fcb061ee96992ad7e8ab9da88203e35f47d6e88b07a13b0e70bfb5e15b4ed6f5a8e0c9ec28b63f95c6e0c1e4b0ab4b8ab4a0a6b4fb0a47b8e50e2ebf0e6e1ef20a8da1b2a3e1", 21700, true},
}

func modes(cs []hashid.Candidate) []int {
	var out []int
	for _, c := range cs {
		if c.HashcatMode != nil {
			out = append(out, *c.HashcatMode)
		} else {
			out = append(out, -1)
		}
	}
	return out
}

func TestIdentifyExamples(t *testing.T) {
	for _, ex := range examples {
		got := hashid.Identify(ex.hash)
		if len(got) == 0 {
			t.Errorf("%.40s: no candidates, want mode %d", ex.hash, ex.mode)
			continue
		}
		ms := modes(got)
		if ex.top {
			if ms[0] != ex.mode {
				t.Errorf("%.40s: top is %q (mode %d), want mode %d; all %v", ex.hash, got[0].Name, ms[0], ex.mode, ms)
			}
			continue
		}
		found := false
		for _, m := range ms {
			found = found || m == ex.mode
		}
		if !found {
			t.Errorf("%.40s: mode %d not among %v", ex.hash, ex.mode, ms)
		}
	}
}

func TestRanking(t *testing.T) {
	tests := []struct {
		hash  string
		names []string // expected leading names, in order
	}{
		{"8743b52063cd84097a65d1633f5c74f5", []string{"MD5", "NTLM", "MD4", "LM"}},
		{"b89eaac7e61417341b710b727768294d0e6a277b", []string{"SHA-1", "RIPEMD-160"}},
		{strings.Repeat("ab", 32), []string{"SHA-256", "SHA3-256", "Keccak-256", "BLAKE2s-256"}},
		{strings.Repeat("ab", 64), []string{"SHA-512", "SHA3-512", "Keccak-512", "Whirlpool", "BLAKE2b-512"}},
	}
	for _, tt := range tests {
		got := hashid.Identify(tt.hash)
		if len(got) < len(tt.names) {
			t.Fatalf("%s: only %d candidates", tt.hash, len(got))
		}
		for i, want := range tt.names {
			if got[i].Name != want {
				t.Errorf("%.20s: candidate %d is %q, want %q", tt.hash, i, got[i].Name, want)
			}
		}
	}
}

func TestNoMatch(t *testing.T) {
	for _, in := range []string{"", "   ", "hello world", "zzzz", strings.Repeat("a", hashid.MaxInputBytes+1)} {
		got := hashid.Identify(in)
		if got == nil || len(got) != 0 {
			t.Errorf("Identify(%.20q) = %v, want empty non-nil", in, got)
		}
	}
}

func TestSecondField(t *testing.T) {
	const sha512crypt = "$6$52450745$k5ka2p8bFuSmoVT1tzOyyuaREkkKBcCNqoDKzYiJL9RaE8yMnPgh2XzzF0NDrUhgrcLwg78xs1w5pJiypEdFX/"
	tests := []struct{ line, field string }{
		{"root:" + sha512crypt + ":19000:0:99999:7:::", sha512crypt},
		{"alice:8743b52063cd84097a65d1633f5c74f5", "8743b52063cd84097a65d1633f5c74f5"},
	}
	for _, tt := range tests {
		got, bare := hashid.Identify(tt.line), hashid.Identify(tt.field)
		if len(got) == 0 || got[0].Name != bare[0].Name {
			t.Fatalf("Identify(%.30q) = %v, want %s first", tt.line, got, bare[0].Name)
		}
		if got[0].Confidence >= bare[0].Confidence {
			t.Errorf("%.30q: confidence %v, want below the bare hash's %v", tt.line, got[0].Confidence, bare[0].Confidence)
		}
	}
}

func TestTrimsWhitespace(t *testing.T) {
	got := hashid.Identify("  \t8743b52063cd84097a65d1633f5c74f5\n")
	if len(got) == 0 || got[0].Name != "MD5" {
		t.Fatalf("got %v, want MD5 first", got)
	}
}

func TestFormatsCount(t *testing.T) {
	if got := hashid.Formats(); got < 200 {
		t.Fatalf("Formats() = %d, want >= 200", got)
	}
	t.Logf("%d formats", hashid.Formats())
}

func checkInvariants(t *testing.T, in string) {
	t.Helper()
	got := hashid.Identify(in)
	if got == nil {
		t.Fatal("nil result")
	}
	for i, c := range got {
		if !(c.Confidence > 0 && c.Confidence <= 1) {
			t.Fatalf("%q: confidence %v out of (0,1]", in, c.Confidence)
		}
		if i > 0 && c.Confidence > got[i-1].Confidence {
			t.Fatalf("%q: not sorted at %d", in, i)
		}
		if c.Name == "" {
			t.Fatalf("%q: empty name", in)
		}
	}
}

func FuzzIdentify(f *testing.F) {
	for _, ex := range examples[:20] {
		f.Add(ex.hash)
	}
	f.Add("")
	f.Add("$2$")
	f.Add("a:b")
	f.Fuzz(checkInvariants)
}

func BenchmarkIdentify(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		hashid.Identify(examples[i%len(examples)].hash)
	}
}

// BenchmarkIdentifyMaxInput measures the worst case: inputs of MaxInputBytes
// that reach the length-gated regexps and the opaque-blob prefixes.
func BenchmarkIdentifyMaxInput(b *testing.B) {
	n := hashid.MaxInputBytes
	inputs := map[string]string{
		"hex":    strings.Repeat("a", n),
		"prefix": "$7z$" + strings.Repeat("0", n-4),
		"colons": "u::d:" + strings.Repeat("0a:", (n-5)/3),
		"ntlmv2": "u::d:" + strings.Repeat("a", 16) + ":" + strings.Repeat("b", 32) + ":" + strings.Repeat("c", n-60) + "z",
		"salted": strings.Repeat("ab", 16) + ":" + strings.Repeat("x", n-33),
	}
	for name, in := range inputs {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				hashid.Identify(in)
			}
		})
	}
}
