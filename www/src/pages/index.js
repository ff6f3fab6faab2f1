import React from 'react';
import Link from '@docusaurus/Link';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import Layout from '@theme/Layout';
import styles from './index.module.css';

/** The four modules, in reading order (links go to each module's generated index). */
const MODULES = [
  {
    title: 'Module 1: ROS 2',
    to: '/docs/category/module-1-ros-2--the-robotic-nervous-system',
    text: 'The robotic nervous system: DDS, nodes, topics, services and actions, rclpy, URDF and launch files.',
  },
  {
    title: 'Module 2: Simulation',
    to: '/docs/category/module-2-the-digital-twin--gazebo--unity',
    text: 'Digital twins in Gazebo and Unity: worlds, physics and contact, simulated sensors, human-robot interaction.',
  },
  {
    title: 'Module 3: NVIDIA Isaac',
    to: '/docs/category/module-3-the-ai-robot-brain--nvidia-isaac',
    text: 'Isaac Sim and USD, synthetic data, GPU perception with Isaac ROS, Nav2, reinforcement learning and sim-to-real.',
  },
  {
    title: 'Module 4: Vision-Language-Action',
    to: '/docs/category/module-4-vision-language-action',
    text: 'VLA models, voice commands with Whisper, LLM task planning, grounding and safety, and the capstone humanoid.',
  },
];

export default function Home() {
  const {siteConfig} = useDocusaurusContext();
  return (
    <Layout title="Home" description={siteConfig.tagline}>
      <header className={styles.hero}>
        <div className="container">
          <h1 className={styles.title}>{siteConfig.title}</h1>
          <p className={styles.tagline}>{siteConfig.tagline}</p>
          <Link className="button button--primary button--lg" to="/docs/intro">
            Start reading
          </Link>
        </div>
      </header>
      <main className="container margin-vert--lg">
        <div className="row">
          {MODULES.map((m) => (
            <div key={m.title} className="col col--6 margin-bottom--lg">
              <Link to={m.to} className={styles.card}>
                <h2>{m.title}</h2>
                <p>{m.text}</p>
              </Link>
            </div>
          ))}
        </div>
        <p className={styles.note}>
          Every chapter has a chat assistant (bottom right, or Alt+Shift+A) that answers from this book only and
          links to the sections it used.
        </p>
      </main>
    </Layout>
  );
}
