package engine

import (
	"fmt"
	"testing"
)

// LOLWUT: lockredis's own text, with Redis's arguments.
func TestLolwut(t *testing.T) {
	te := newTestEngine(t)
	own := fmt.Sprintf("%q", "Redis ver. "+Version+"\n")
	te.run([]step{
		{cmd("LOLWUT"), own},
		{cmd("LOLWUT", "VERSION", "7", "x"), own},
		{cmd("LOLWUT", "VERSION", "-1"), own},
		{cmd("LOLWUT", "VERSION", "5"), fmt.Sprintf("%q", "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. "+Version+"\n")},
		{cmd("LOLWUT", "VERSION", "4294967301", "1", "2", "3", "x"), fmt.Sprintf("%q", "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. "+Version+"\n")},
		{cmd("LOLWUT", "VERSION", "6", "1", "2"), fmt.Sprintf("%q", "\nDedicated to the 8 bit game developers of past and present.\nOriginal 8 bit image from Plaguemon by hikikomori. Redis ver. "+Version+"\n")},
		{cmd("LOLWUT", "VERSION", "6", "1", "x"), "(error) ERR value is not an integer or out of range"},
		{cmd("LOLWUT", "VERSION", "x"), "(error) ERR value is not an integer or out of range"},
	})
}
