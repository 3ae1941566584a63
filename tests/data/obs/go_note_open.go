// Opens a signed note with golang.org/x/mod/sumdb/note (the Go reference implementation): go_note_open VKEY_FILE NOTE_FILE
// prints the verified text (exit 0), or the error (exit 1; 2 for a bad verifier key). Used by tests/test_obs_checkpoint.py.

package main

import (
	"fmt"
	"os"

	"golang.org/x/mod/sumdb/note"
)

func main() {
	vkey, _ := os.ReadFile(os.Args[1])
	msg, _ := os.ReadFile(os.Args[2])
	v, err := note.NewVerifier(string(vkey))
	if err != nil {
		fmt.Println("verifier:", err)
		os.Exit(2)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	fmt.Printf("%s", n.Text)
}
