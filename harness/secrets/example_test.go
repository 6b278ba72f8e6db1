package secrets_test

import (
	"encoding/base64"
	"fmt"
	"os"

	"exo/harness/secrets"
)

// Secrets are sealed under a key in EXO_HOME and redacted from output.
func ExampleVault() {
	home, _ := os.MkdirTemp("", "exo-home")
	defer os.RemoveAll(home)
	v, err := secrets.NewVault(home, secrets.NewMemBackend())
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = v.Set("OPENAI_API_KEY", []byte("sk-proj-0123456789"))
	infos, _ := v.List()
	fmt.Println(infos[0].Name)

	r, _ := v.Redactor()
	fmt.Println(r.String("token sk-proj-0123456789, encoded " +
		base64.StdEncoding.EncodeToString([]byte("sk-proj-0123456789"))))
	// Output:
	// OPENAI_API_KEY
	// token ‹secret:OPENAI_API_KEY›, encoded ‹secret:OPENAI_API_KEY›
}

// A Writer redacts a stream even when a value is split between writes.
func ExampleRedactor_NewWriter() {
	r := secrets.NewRedactor(map[string][]byte{"DB_PASSWORD": []byte("hunter2-hunter2")})
	w := r.NewWriter(os.Stdout)
	_, _ = w.Write([]byte("connecting with hunter2-"))
	_, _ = w.Write([]byte("hunter2 now\n"))
	_ = w.Close()
	// Output: connecting with ‹secret:DB_PASSWORD› now
}
