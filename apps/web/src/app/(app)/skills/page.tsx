import { SkillsLibrary } from "./skills-library";

export default function SkillsPage() {
  return (
    <main className="page wide">
      <h1>Skills</h1>
      <SkillsLibrary />
    </main>
  );
}
