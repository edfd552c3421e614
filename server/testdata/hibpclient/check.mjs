// Asks a Pwned Passwords range API at BASE_URL the questions the Go test
// passes as JSON in argv[2], with the hibp client's own functions, and
// prints the answers as JSON. Only hibp's public API is used, configured
// with nothing but its baseUrl, addPadding and mode options.
import { pwnedPassword, pwnedPasswordRange } from 'hibp';

const baseUrl = process.env.BASE_URL;
const questions = JSON.parse(process.argv[2]);
const answers = [];
for (const q of questions) {
  try {
    if (q.password !== undefined) {
      answers.push({ count: await pwnedPassword(q.password, { baseUrl, addPadding: q.addPadding }) });
    } else {
      const range = await pwnedPasswordRange(q.prefix, { baseUrl, addPadding: q.addPadding, mode: q.mode });
      answers.push({ range });
    }
  } catch (err) {
    answers.push({ error: String(err.message || err) });
  }
}
process.stdout.write(JSON.stringify(answers));
