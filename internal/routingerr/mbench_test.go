package routingerr

import "testing"

func BenchmarkMatcherScan(b *testing.B) {
	s := benchTypical.RPCMessage + "\n" + benchTypical.RPCData + benchUnmatched.Err[:60]
	b.SetBytes(int64(len(s)))
	buf := make([]byte, len(s))
	var f kwSet
	var l lastEnds
	for b.Loop() {
		f = kwSet{}
		keywords.scan(s, buf, &f, &l)
	}
}

var sinkInt int

func BenchmarkCalibrate(b *testing.B) {
	s := benchTypical.RPCMessage + "\n" + benchTypical.RPCData + benchUnmatched.Err[:60]
	tbl := make([]uint16, 256*64)
	for b.Loop() {
		st := 0
		for i := 0; i < len(s); i++ {
			st = int(tbl[(st&63)*256+int(s[i])]) + int(s[i])
		}
		sinkInt = st
	}
}
